"""A Python aggregate function: a class with PyFlink's ``AggregateFunction`` methods, duck-typed
(no import of PyFlink or of ours is needed):

    class WeightedAvg:
        def create_accumulator(self):             # a new group's accumulator
            return [0, 0]
        def accumulate(self, acc, value: int, weight: int) -> None:   # one input row
            ...
        def retract(self, acc, value: int, weight: int) -> None:      # one row taken back
            ...
        def get_value(self, acc) -> float:        # the group's result
            ...

Its SQL signature is read from ``accumulate``'s parameters after the accumulator (the
arguments) and ``get_value``'s return annotation (the result), or from ``@function(result=...,
params=...)`` on the class. ``retract`` is needed only over an input that updates or retracts
rows, as in Flink. Read from the imported class (``sqlengine run``) or from its source (lint),
the two giving the same signature."""

from __future__ import annotations

import inspect
import sys
import typing
from dataclasses import replace
from typing import Any

from planner.udf.decorator import Declared, declared_of
from planner.udf.loader import Params, Signature, UdfError, build

REQUIRED = ("create_accumulator", "accumulate", "get_value")
HINT = "an aggregate function is a class with create_accumulator, accumulate(acc, ...) and get_value(acc) (and retract, over updating input)"


def missing_methods(target: str, names: set[str]) -> None:
    """Refuse a class that is not an aggregate function (``names``: the methods it defines)."""
    missing = [m for m in REQUIRED if m not in names]
    if missing:
        raise UdfError(f"'{target}' is a class without a `{missing[0]}` method: it is not an aggregate function", HINT)


def aggregate_signature(
    target: str, declared: Declared, accumulate: Params, hints: dict[str, Any] | None, unreadable: str,
    retracts: bool, module_file: str | None,
) -> Signature:
    """The signature of an aggregate function: ``accumulate`` its parameters after ``self`` and the
    accumulator, ``hints`` the annotations of those and ``get_value``'s return (as "return")."""
    if declared.vectorized:
        raise UdfError(f"'{target}': an aggregate function cannot be vectorized", HINT)
    if len(accumulate.names) < 2 and not accumulate.varargs:
        raise UdfError(f"'{target}': accumulate takes the accumulator after self, then the arguments", HINT)
    args = Params(accumulate.names[2:], max(accumulate.required - 2, 0), accumulate.varargs)
    sig = build(target, replace(declared, table=False), args, hints, unreadable, False, module_file)
    return replace(sig, aggregate=True, retracts=retracts)


def of_class(target: str, cls: type) -> Signature:
    """The signature of the imported class ``cls``."""
    missing_methods(target, {m for m in REQUIRED if callable(getattr(cls, m, None))})
    declared = declared_of(cls) or Declared()
    acc = cls.accumulate  # type: ignore[attr-defined]
    try:
        sig = inspect.signature(acc)
    except (TypeError, ValueError) as err:
        raise UdfError(f"cannot read the signature of '{target}.accumulate': {err}") from None
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    params = Params(
        tuple(p.name for p in positional),
        sum(1 for p in positional if p.kind != p.VAR_POSITIONAL and p.default is p.empty),
        any(p.kind == p.VAR_POSITIONAL for p in positional),
    )
    hints: dict[str, Any] | None
    try:
        hints = {k: v for k, v in typing.get_type_hints(acc).items() if k != "return"}
        result = typing.get_type_hints(cls.get_value).get("return")  # type: ignore[attr-defined]
        if result is not None:
            hints["return"] = result
        unreadable = ""
    except Exception as err:
        hints, unreadable = None, f"{type(err).__name__}: {err}"
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    retracts = callable(getattr(cls, "retract", None))
    return aggregate_signature(target, declared, params, hints, unreadable, retracts, getattr(module, "__file__", None))
