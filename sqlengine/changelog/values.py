"""Values as the changelog operators compare, hash and compute them, with Flink's (and the batch
engine's) semantics: NULL ordering (first ascending, last descending), NaN above every number,
integer sums that wrap as Spark's do with ANSI mode off, decimals at the result's scale."""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

Row = tuple[Any, ...]
Key = Callable[[Row], Any]


class Desc:
    """A value that sorts in reverse (for a descending key that cannot be negated)."""

    __slots__ = ("v",)

    def __init__(self, v: Any) -> None:
        self.v = v

    def __lt__(self, other: Desc) -> bool:
        return bool(other.v < self.v)

    def __gt__(self, other: Desc) -> bool:
        return bool(other.v > self.v)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Desc) and self.v == other.v

    def __hash__(self) -> int:
        return hash(self.v)


def _numeric(t: pa.DataType) -> bool:
    return bool(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t))


def _component(index: int, desc: bool, t: pa.DataType) -> Callable[[Row], Any]:
    floating = pa.types.is_floating(t)
    if _numeric(t) and desc:

        def num_desc(row: Row) -> Any:
            v = row[index]
            if v is None:
                return (1,)  # NULLs last
            if floating and math.isnan(v):
                return (-1,)  # NaN is the largest: first
            return (0, -v)

        return num_desc

    def asc(row: Row) -> Any:
        v = row[index]
        if v is None:
            return (0,)  # NULLs first
        if floating and math.isnan(v):
            return (2,)
        return (1, v)

    if not desc:
        return asc
    return lambda row: Desc(asc(row))


def order_key(order: Sequence[tuple[int, bool]], types: Sequence[pa.DataType]) -> Key:
    """A sort key for rows by ``order`` ((column index, descending) pairs), with Flink's NULL
    ordering: NULLs are the smallest values (first ascending, last descending)."""
    parts = [_component(i, d, types[i]) for i, d in order]
    if len(parts) == 1:
        only = parts[0]
        return lambda row: (only(row),)
    return lambda row: tuple(p(row) for p in parts)


def value_key(t: pa.DataType) -> Callable[[Any], Any]:
    """A key under which values of type ``t`` compare as the batch engine compares them (NaN
    above every number); NULLs are not passed."""
    if pa.types.is_floating(t):
        return lambda v: (1, 0.0) if math.isnan(v) else (0, v)
    return lambda v: v


class _NaN(float):
    """The one NaN every value read becomes: NaN equals nothing, not even itself, so Python's
    tuples and dicts find it by identity only, and a pickled state gives this object back as itself."""

    def __reduce__(self) -> str:
        return "NAN"  # the module's global of that name


NAN = _NaN("nan")


def _one_nan(v: Any) -> Any:
    return NAN if v != v else v  # NaN is the one value that differs from itself


def freezer(t: pa.DataType) -> Callable[[Any], Any] | None:
    """How a value of type ``t`` becomes hashable (lists and structs as tuples), or None when it
    already is."""
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        inner = _nested(t.value_type)
        if inner is None:
            return lambda v: None if v is None else tuple(v)
        return lambda v: None if v is None else tuple(inner(x) for x in v)
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        inners = [_nested(t.field(i).type) for i in range(t.num_fields)]

        def struct(v: Any) -> Any:
            if v is None:
                return None
            return _FrozenStruct((n, f(v[n]) if f else v[n]) for n, f in zip(names, inners, strict=True))

        return struct
    if pa.types.is_map(t):
        return lambda v: None if v is None else tuple(v)
    return None


def _nested(t: pa.DataType) -> Callable[[Any], Any] | None:
    """How a value inside a list or struct is frozen: as at the top, a float's NaN made the one NaN."""
    return _one_nan if pa.types.is_floating(t) else freezer(t)


class _FrozenStruct(tuple[tuple[str, Any], ...]):
    """A struct value made hashable; Arrow reads it back as a dict."""


def thaw(v: Any) -> Any:
    if isinstance(v, _FrozenStruct):
        return {n: thaw(x) for n, x in v}
    if isinstance(v, tuple):
        return [thaw(x) for x in v]
    return v


def thawed(row: Row) -> Row:
    """A held row as it is emitted: every value thawed (the row itself when none is frozen, as
    most rows are: no call per value)."""
    for v in row:
        if isinstance(v, tuple):
            return tuple(thaw(x) for x in row)
    return row


def same_value(a: Any, b: Any) -> bool:
    """Two result values equal as Flink's equaliser compares its binary rows: floats by their
    bits (NaN equals NaN, -0.0 differs from 0.0), anything else by value."""
    if isinstance(a, float) and isinstance(b, float):
        if a != a or b != b:
            return a != a and b != b
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def same_row(a: Row, b: Row) -> bool:
    return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))


def columns(batch: pa.Table, start: int, stop: int | None = None) -> list[list[Any]]:
    """The batch's columns from ``start`` as Python lists, made hashable where needed, every NaN
    the same object: Python finds a tuple or dict key by identity before ``==``, so a held row
    holding a NaN is found again by its retraction, as Flink's binary rows (NaN equal to NaN) are."""
    out = []
    names = batch.schema.names
    for i in range(start, len(names) if stop is None else stop):
        col = batch.column(i)
        values = col.to_pylist()
        f = freezer(col.type)
        if f is not None:
            values = [f(v) for v in values]
        elif pa.types.is_floating(col.type) and pc.any(pc.is_nan(col)).as_py():
            values = [_one_nan(v) for v in values]
        out.append(values)
    return out


# -- results typed as the batch engine types them ------------------------------------------------

DECIMAL_CONTEXT = decimal.Context(prec=100, rounding=decimal.ROUND_HALF_UP)


@dataclass(frozen=True)
class Typing:
    """How a computed value is made the type the batch engine gives it."""

    kind: str  # "long" (wraps at 64 bits), "decimal", "float", "as-is"
    precision: int = 0
    scale: int = 0

    @staticmethod
    def of(t: pa.DataType) -> Typing:
        if pa.types.is_integer(t):
            return Typing("long")
        if pa.types.is_decimal(t):
            return Typing("decimal", t.precision, t.scale)
        if pa.types.is_floating(t):
            return Typing("float")
        return Typing("as-is")

    def cast(self, v: Any) -> Any:
        if v is None:
            return None
        if self.kind == "long":
            return ((int(v) + (1 << 63)) % (1 << 64)) - (1 << 63)
        if self.kind == "decimal":
            q = decimal.Decimal(v).quantize(decimal.Decimal(1).scaleb(-self.scale), context=DECIMAL_CONTEXT)
            # a value with more digits than the type holds is NULL (Spark, ANSI mode off)
            return None if q.adjusted() + 1 > self.precision - self.scale else q
        if self.kind == "float":
            return float(v)
        return v

    def divide(self, total: Any, n: int) -> Any:
        """An average: ``total / n`` in the result's type (integers truncate, as Flink's AVG of an
        integer column and Spark's DIV do)."""
        if self.kind == "long":
            q = abs(total) // n
            return self.cast(q if total >= 0 else -q)
        if self.kind == "decimal":
            return self.cast(DECIMAL_CONTEXT.divide(decimal.Decimal(total), decimal.Decimal(n)))
        return self.cast(total / n)
