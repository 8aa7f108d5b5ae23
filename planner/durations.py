"""Durations as Flink writes them in options and settings: '10 s', '1h', '30 min', '1 d', '500 ms',
a bare number is milliseconds."""

from __future__ import annotations

import re

_UNITS = {
    "ms": 1, "milli": 1, "millis": 1, "millisecond": 1, "milliseconds": 1,
    "s": 1000, "sec": 1000, "secs": 1000, "second": 1000, "seconds": 1000,
    "min": 60_000, "mins": 60_000, "m": 60_000, "minute": 60_000, "minutes": 60_000,
    "h": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
    "d": 86_400_000, "day": 86_400_000, "days": 86_400_000,
}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_duration(text: str) -> int:
    """Milliseconds; ValueError with a readable message for anything else."""
    m = _PATTERN.match(str(text))
    if not m:
        raise ValueError(f"'{text}' is not a duration such as '10 s', '5 min', '1 h' or '1 d'")
    value, unit = float(m.group(1)), m.group(2).lower()
    if unit and unit not in _UNITS:
        raise ValueError(f"'{text}': unknown time unit '{unit}' (use ms, s, min, h or d)")
    return round(value * _UNITS.get(unit, 1))


def format_duration(ms: int | None) -> str:
    if ms is None:
        return "forever"
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size} {unit}"
    if ms >= 1000:
        return f"{ms / 1000:g} s"
    return f"{ms} ms"
