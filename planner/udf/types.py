"""Python annotations as Flink SQL types, as PyFlink maps them: ``int`` is BIGINT, ``str``
STRING, ``float`` DOUBLE, ``bool`` BOOLEAN, ``bytes`` BYTES, ``datetime.date`` DATE,
``datetime.datetime`` TIMESTAMP(3), ``datetime.time`` TIME(0), ``decimal.Decimal``
DECIMAL(38, 18); ``list[X]`` ARRAY<X>, ``dict[K, V]`` MAP<K, V>; ``Optional[X]`` (``X | None``)
is X (every SQL type here is nullable: NULL arrives as None)."""

from __future__ import annotations

import collections.abc
import datetime
import decimal
import types
import typing
from typing import Any

SCALARS: dict[Any, str] = {
    int: "BIGINT",
    str: "STRING",
    float: "DOUBLE",
    bool: "BOOLEAN",
    bytes: "BYTES",
    bytearray: "BYTES",
    datetime.date: "DATE",
    datetime.datetime: "TIMESTAMP(3)",
    datetime.time: "TIME(0)",
    decimal.Decimal: "DECIMAL(38, 18)",
}

_ITERATORS = (
    collections.abc.Iterator, collections.abc.Iterable, collections.abc.Generator,
    typing.Iterator, typing.Iterable, typing.Generator,
)


class NotASqlType(ValueError):
    """An annotation with no SQL type."""


def sql_type(annotation: Any) -> str:
    """The Flink SQL type of a Python annotation (already evaluated)."""
    if annotation in SCALARS:
        return SCALARS[annotation]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        present = [a for a in args if a is not type(None)]
        if len(present) == 1:
            return sql_type(present[0])
        raise NotASqlType(f"`{_shown(annotation)}` is a union of several types")
    if origin in (list, collections.abc.Sequence, typing.List) and len(args) == 1:  # noqa: UP006
        return f"ARRAY<{sql_type(args[0])}>"
    if origin in (dict, collections.abc.Mapping, typing.Dict) and len(args) == 2:  # noqa: UP006
        return f"MAP<{sql_type(args[0])}, {sql_type(args[1])}>"
    raise NotASqlType(f"`{_shown(annotation)}` has no SQL type")


def row_type(annotation: Any) -> str:
    """A table function's row: ``Iterator[tuple[int, str]]`` is ROW<f0 BIGINT, f1 STRING>, an
    ``Iterator[str]`` a row of one column ``f0``."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin not in _ITERATORS or not args:
        raise NotASqlType(f"a table function returns `Iterator[tuple[...]]`, not `{_shown(annotation)}`")
    item = args[0]
    if typing.get_origin(item) is tuple:
        members = typing.get_args(item)
        if not members or Ellipsis in members:
            raise NotASqlType(f"`{_shown(item)}`: name each column's type (tuple[int, str])")
    else:
        members = (item,)
    return "ROW<" + ", ".join(f"f{i} {sql_type(m)}" for i, m in enumerate(members)) + ">"


def is_iterator(annotation: Any) -> bool:
    return typing.get_origin(annotation) in _ITERATORS


def _shown(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
