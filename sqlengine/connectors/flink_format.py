"""Values printed the way Flink's print connector prints them (Java's toString of the external
types): ``+I[1, foo, null]``, nested rows as ``+I[...]``, arrays ``[1, 2]``, maps ``{k=v}``,
TIMESTAMP as LocalDateTime (``2024-01-02T03:04:05.123``), TIMESTAMP_LTZ as Instant (UTC, ``Z``),
doubles as Java's Double.toString (``1.0E7``), bytes as ``[1, -2]``."""

from __future__ import annotations

import datetime as dt
import math
import struct
from decimal import Decimal
from typing import Any

from pyspark.sql import types as T

from planner.logical.changelog import RowKind


def _java_double(value: float, single: bool = False) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    text = _shortest_float(value) if single else repr(value)
    if value == 0:
        return "-0.0" if math.copysign(1, value) < 0 else "0.0"
    digits = Decimal(text)
    if 1e-3 <= abs(value) < 1e7:
        plain = format(digits, "f")
        return plain if "." in plain else plain + ".0"
    sign, mantissa, exponent = digits.as_tuple()
    assert isinstance(exponent, int)  # 'n'/'N'/'F' only for NaN and infinities, returned above
    numerals = "".join(map(str, mantissa)).rstrip("0") or "0"
    exp10 = exponent + len(mantissa) - 1
    frac = numerals[1:] or "0"
    return f"{'-' if sign else ''}{numerals[0]}.{frac}E{exp10}"


def _shortest_float(value: float) -> str:
    """The shortest decimal that reads back as the same 32-bit float (as Java prints a float)."""
    packed = struct.pack("f", value)
    for precision in range(1, 10):
        text = f"{value:.{precision}g}"
        if struct.pack("f", float(text)) == packed:
            return text
    return repr(value)


def _fraction(micros: int) -> str:
    if micros == 0:
        return ""
    if micros % 1000 == 0:
        return f".{micros // 1000:03d}"
    return f".{micros:06d}"


def _local_time(t: dt.time) -> str:
    """java.time.LocalTime.toString: HH:mm, then :ss and a fraction only when not zero."""
    text = f"{t.hour:02d}:{t.minute:02d}"
    if t.second or t.microsecond:
        text += f":{t.second:02d}" + _fraction(t.microsecond)
    return text


def _duration(delta: dt.timedelta) -> str:
    """java.time.Duration.toString, e.g. PT26H3M4.5S."""
    total_us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if total_us == 0:
        return "PT0S"
    sign = "-" if total_us < 0 else ""
    total_us = abs(total_us)
    hours, rest = divmod(total_us, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, micros = divmod(rest, 1_000_000)
    text = "PT"
    if hours:
        text += f"{sign}{hours}H"
    if minutes:
        text += f"{sign}{minutes}M"
    if seconds or micros:
        frac = f".{micros:06d}".rstrip("0") if micros else ""
        text += f"{sign}{seconds}{frac}S"
    return text


def format_value(value: Any, dtype: T.DataType) -> str:
    if value is None:
        return "null"
    if isinstance(dtype, T.BooleanType):
        return "true" if value else "false"
    if isinstance(dtype, T.DoubleType):
        return _java_double(float(value))
    if isinstance(dtype, T.FloatType):
        return _java_double(float(value), single=True)
    if isinstance(dtype, T.TimestampNTZType):
        local: dt.datetime = value
        return local.strftime("%Y-%m-%dT") + _local_time(local.time())
    if isinstance(dtype, T.TimestampType):
        moment: dt.datetime = value
        utc = moment.astimezone(dt.UTC)  # a naive value is the driver's local time
        return utc.strftime("%Y-%m-%dT%H:%M:%S") + _fraction(utc.microsecond) + "Z"
    if isinstance(dtype, T.DateType):
        day: dt.date = value
        return day.isoformat()
    if isinstance(dtype, T.TimeType):
        return _local_time(value)
    if isinstance(dtype, T.DayTimeIntervalType):
        return _duration(value)
    if isinstance(dtype, T.BinaryType):
        return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in bytes(value)) + "]"
    if isinstance(dtype, T.DecimalType):
        return str(value)
    if isinstance(dtype, T.ArrayType):
        return "[" + ", ".join(format_value(v, dtype.elementType) for v in value) + "]"
    if isinstance(dtype, T.MapType):
        items = (
            f"{format_value(k, dtype.keyType)}={format_value(v, dtype.valueType)}"
            for k, v in value.items()
        )
        return "{" + ", ".join(items) + "}"
    if isinstance(dtype, T.StructType):
        return format_row(value, dtype, RowKind.INSERT)
    return str(value)


def format_row(row: Any, schema: T.StructType, kind: RowKind) -> str:
    """``+I[1, foo]``: a row kind and the row's values."""
    values = ", ".join(format_value(row[i], f.dataType) for i, f in enumerate(schema.fields))
    return f"{kind}[{values}]"
