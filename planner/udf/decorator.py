"""``@function``: what a Python function's annotations cannot say about it as a SQL function.

A plain function with type annotations needs none of this (``def count_char(s: str, c: str) ->
int`` is a scalar function returning BIGINT). The decorator adds, without wrapping the function
(it stays the same object, pickled by reference for Spark's Python workers):

- ``result``: the SQL result type as Flink SQL text (``DECIMAL(10, 2)``, ``ARRAY<STRING>``,
  ``ROW<word STRING, n INT>``: a table function's row);
- ``params``: the SQL types of the parameters, where an annotation is not precise enough;
- ``deterministic``: False for a function whose result may differ for the same arguments;
- ``vectorized``: the function takes one pandas Series per argument and returns a Series of the
  results (called once per batch of rows rather than once per row);
- ``table``: a table function (a generator of rows, used with ``LATERAL TABLE``); implied by
  a ROW ``result`` on a generator function or an ``Iterator[...]`` return annotation.

This module imports nothing beyond the standard library: a user's module imports it in lint,
in the shell and in Spark's Python workers alike.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, overload

ATTRIBUTE = "__sqlengine_function__"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Declared:
    """What ``@function`` declared about a function (None: taken from the annotations)."""

    result: str | None = None
    params: tuple[str, ...] | None = None
    deterministic: bool = True
    vectorized: bool = False
    table: bool | None = None


@overload
def function(fn: F, /) -> F: ...


@overload
def function(
    *,
    result: str | None = None,
    params: tuple[str, ...] | list[str] | None = None,
    deterministic: bool = True,
    vectorized: bool = False,
    table: bool | None = None,
) -> Callable[[F], F]: ...


def function(
    fn: Any = None,
    /,
    *,
    result: str | None = None,
    params: tuple[str, ...] | list[str] | None = None,
    deterministic: bool = True,
    vectorized: bool = False,
    table: bool | None = None,
) -> Any:
    """Mark a Python function as a SQL function: ``@function`` or ``@function(result=..., ...)``."""
    declared = Declared(result, tuple(params) if params is not None else None, deterministic, vectorized, table)

    def mark(f: F) -> F:
        setattr(f, ATTRIBUTE, declared)
        return f

    return mark(fn) if fn is not None else mark


def declared_of(fn: object) -> Declared | None:
    found = getattr(fn, ATTRIBUTE, None)
    return found if isinstance(found, Declared) else None
