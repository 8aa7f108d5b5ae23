"""Flink SQL types to Spark types.

Choices where the two differ:
- CHAR(n)/VARCHAR(n)/STRING -> StringType (Spark allows CHAR/VARCHAR only in table schemas; the
  length is not enforced on DataFrames).
- TIME(p) -> TimeType(min(p, 6)): Spark 4.x has TIME behind ``spark.sql.timeType.enabled``, which
  ``sqlengine.session`` turns on; Spark keeps at most microseconds.
- TIMESTAMP(p) -> TimestampNTZType, TIMESTAMP_LTZ(p) -> TimestampType: Spark keeps microseconds,
  so precisions above 6 are truncated.
- MULTISET<T> -> MapType(T, IntegerType): an element and its multiplicity, as Flink stores it.
- INTERVAL YEAR/MONTH kinds -> YearMonthIntervalType, day-time kinds -> DayTimeIntervalType.
- DECIMAL without precision is DECIMAL(10, 0), Flink's default; precision is capped at 38.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlglot import exp

from planner.dialect import parse_type

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructType

    from catalog import Column

DT = exp.DataType.Type


class UnsupportedType(Exception):
    """A Flink type with no Spark counterpart; ``str(err)`` names the type."""


def spark_type(flink_type: str | exp.DataType) -> DataType:
    """The Spark type of a Flink type given as text (``ROW<a INT>``) or a parsed DataType."""
    if isinstance(flink_type, str):
        try:
            parsed = parse_type(flink_type)
        except Exception:
            raise UnsupportedType(f"Cannot read the type `{flink_type}`.") from None
        return _convert(parsed, flink_type)
    return _convert(flink_type, flink_type.sql())


def spark_schema(columns: Iterable[Column]) -> StructType:
    """A StructType of the given catalog columns (in order; columns without a type are an error)."""
    from pyspark.sql.types import StructField, StructType

    fields = []
    for col in columns:
        if col.type is None:
            raise UnsupportedType(f"Column `{col.name}` has no declared type.")
        fields.append(StructField(col.name, spark_type(col.type), nullable=col.nullable))
    return StructType(fields)


def _params(dt: exp.DataType) -> list[int]:
    out = []
    for p in dt.expressions:
        if isinstance(p, exp.DataTypeParam):
            out.append(int(p.this.name))
    return out


def _convert(dt: exp.DataType, text: str) -> DataType:
    from pyspark.sql import types as T

    kind = dt.this
    if isinstance(kind, exp.Interval):
        return _interval(kind, text)
    simple = {
        DT.BOOLEAN: T.BooleanType,
        DT.TINYINT: T.ByteType,
        DT.SMALLINT: T.ShortType,
        DT.INT: T.IntegerType,
        DT.BIGINT: T.LongType,
        DT.FLOAT: T.FloatType,
        DT.DOUBLE: T.DoubleType,
        DT.CHAR: T.StringType,
        DT.NCHAR: T.StringType,
        DT.VARCHAR: T.StringType,
        DT.NVARCHAR: T.StringType,
        DT.TEXT: T.StringType,
        DT.BINARY: T.BinaryType,
        DT.VARBINARY: T.BinaryType,
        DT.DATE: T.DateType,
        DT.NULL: T.NullType,
        DT.VARIANT: T.VariantType,
    }
    if kind in simple:
        return simple[kind]()
    params = _params(dt)
    if kind == DT.DECIMAL:
        precision = min(params[0], 38) if params else 10
        scale = params[1] if len(params) > 1 else 0
        if not 0 <= scale <= precision:
            raise UnsupportedType(f"DECIMAL scale must be between 0 and the precision in `{text}`.")
        return T.DecimalType(precision, scale)
    if kind == DT.TIME:
        return T.TimeType(min(params[0], 6) if params else 0)
    if kind in (DT.TIMESTAMP, DT.DATETIME):
        return T.TimestampNTZType()
    if kind in (DT.TIMESTAMPLTZ, DT.TIMESTAMPTZ):
        return T.TimestampType()
    children = [c for c in dt.expressions if isinstance(c, exp.DataType)]
    if kind == DT.ARRAY:
        return T.ArrayType(_convert(children[0], text), containsNull=True)
    if kind == DT.LIST:  # MULTISET<T>
        return T.MapType(_convert(children[0], text), T.IntegerType(), valueContainsNull=False)
    if kind == DT.MAP:
        return T.MapType(_convert(children[0], text), _convert(children[1], text), True)
    if kind == DT.STRUCT:
        fields = []
        for child in dt.expressions:
            if not isinstance(child, exp.ColumnDef):
                raise UnsupportedType(f"A ROW field needs a name in `{text}`.")
            kind_dt = child.args["kind"]
            not_null = kind_dt.args.get("nullable") is False or any(
                isinstance(c.args.get("kind"), exp.NotNullColumnConstraint)
                for c in child.args.get("constraints") or ()
            )
            fields.append(
                T.StructField(child.name, _convert(kind_dt, text), nullable=not not_null)
            )
        return T.StructType(fields)
    name = kind.value if isinstance(kind, DT) else str(kind)
    raise UnsupportedType(f"The type {name} (in `{text}`) is not supported on Spark.")


_YEAR_MONTH = {"YEAR": 0, "MONTH": 1}
_DAY_TIME = {"DAY": 0, "HOUR": 1, "MINUTE": 2, "SECOND": 3}


def _interval(interval: exp.Interval, text: str) -> DataType:
    from pyspark.sql.types import DayTimeIntervalType, YearMonthIntervalType

    unit = interval.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        start, end = unit.this.name.upper(), unit.expression.name.upper()
    else:
        start = end = unit.name.upper() if unit is not None else "SECOND"
    if start in _YEAR_MONTH and end in _YEAR_MONTH:
        return YearMonthIntervalType(_YEAR_MONTH[start], _YEAR_MONTH[end])
    if start in _DAY_TIME and end in _DAY_TIME:
        return DayTimeIntervalType(_DAY_TIME[start], _DAY_TIME[end])
    raise UnsupportedType(f"The interval type `{text}` is not supported on Spark.")
