"""One plain form of a result value, shared by make_expected.py (Flink's rows) and
test_conformance.py (sqlengine's), so that both sides are written and compared alike:
timestamps as 'yyyy-MM-dd HH:mm:ss.SSS', decimals as their text, bytes as x'hex', floats to 9 significant digits.
Standard library only: make_expected.py runs in a virtualenv of its own with PyFlink."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from typing import Any


def plain(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else float(f"{value:.9g}")
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ", timespec="milliseconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value.normalize()) if value == value.to_integral() else str(value)
    if isinstance(value, (bytes, bytearray)):  # PyFlink gives bytearray, PySpark bytes
        return "x'" + bytes(value).hex() + "'"
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):  # a MAP or MULTISET: its entries, in the order of their keys' text
        return sorted(([plain(k), plain(v)] for k, v in value.items()), key=lambda kv: str(kv[0]))
    return str(value)


def row_key(row: list[Any]) -> str:
    """A sort key for rows of mixed types and NULLs (files list rows in a stable order)."""
    return repr([(v is None, str(v)) for v in row])


def zone_of(text: str) -> str:
    """A query's 'table.local-time-zone': its ``-- zone: <zone>`` line, else UTC."""
    for line in text.splitlines():
        if line.startswith("-- zone:"):
            return line.split(":", 1)[1].strip()
    return "UTC"
