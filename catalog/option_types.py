"""What one WITH option is (its key, type, default, meaning) and how its values are read: Flink's
durations ('10 s'), memory sizes ('200b') and booleans. Connector specs are built from these."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

OptionType = Literal["string", "int", "long", "double", "boolean", "duration", "enum", "path", "memory"]


@dataclass(frozen=True)
class OptionSpec:
    key: str
    type: OptionType
    default: str | None = None
    required: bool = False
    description: str = ""
    choices: tuple[str, ...] = ()
    flink_name: bool = True  # Flink has an option of this name (False: sqlengine's own)
    ignored: bool = False  # accepted so Flink DDL runs unchanged, but has no effect here


@dataclass(frozen=True)
class OptionProblem:
    key: str
    message: str
    suggestion: str | None = None  # a replacement key or value


def opt(
    key: str,
    type_: OptionType,
    default: str | None = None,
    desc: str = "",
    *,
    required: bool = False,
    choices: tuple[str, ...] = (),
    flink_name: bool = True,
    ignored: bool = False,
) -> OptionSpec:
    return OptionSpec(key, type_, default, required, desc, choices, flink_name, ignored)


_DURATION_UNITS = {
    **dict.fromkeys(("d", "day", "days"), 86400.0),
    **dict.fromkeys(("h", "hour", "hours"), 3600.0),
    **dict.fromkeys(("min", "m", "minute", "minutes"), 60.0),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("ms", "milli", "millis", "millisecond", "milliseconds"), 1e-3),
    **dict.fromkeys(("us", "µs", "micro", "micros", "microsecond", "microseconds"), 1e-6),
    **dict.fromkeys(("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1e-9),
}
_MEMORY_UNITS = {
    **dict.fromkeys(("", "b", "bytes"), 1),
    **dict.fromkeys(("k", "kb", "kibibytes"), 1024),
    **dict.fromkeys(("m", "mb", "mebibytes"), 1024**2),
    **dict.fromkeys(("g", "gb", "gibibytes"), 1024**3),
}
_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Zµ]*)\s*$")


def parse_duration(text: str) -> float:
    """A Flink duration ('10 s', '500ms', '1 min', '2h'; no unit = milliseconds) in seconds."""
    m = _AMOUNT.match(text)
    unit = m.group(2).lower() if m else None
    if m is None or (unit and unit not in _DURATION_UNITS):
        raise ValueError(f"'{text}' is not a duration (e.g. '10 s', '500 ms', '1 min')")
    return float(m.group(1)) * (_DURATION_UNITS[unit] if unit else 1e-3)


def parse_memory(text: str) -> int:
    """A Flink memory size ('200b', '1 kb', '4m') in bytes."""
    m = _AMOUNT.match(text)
    if m is None or m.group(2).lower() not in _MEMORY_UNITS:
        raise ValueError(f"'{text}' is not a size (e.g. '200b', '1 kb', '4 mb')")
    return int(float(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()])


def parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low not in ("true", "false"):
        raise ValueError(f"'{text}' is not a boolean (true or false)")
    return low == "true"


def check_value(spec: OptionSpec, value: str) -> str | None:
    """Why ``value`` does not fit ``spec``, or None."""
    try:
        if spec.type in ("int", "long"):
            int(value.strip())
        elif spec.type == "double":
            float(value.strip())
        elif spec.type == "boolean":
            parse_bool(value)
        elif spec.type == "duration":
            parse_duration(value)
        elif spec.type == "memory":
            parse_memory(value)
        elif spec.type == "enum" and value not in spec.choices:
            return f"'{value}' is not one of {', '.join(spec.choices)}"
        elif spec.type == "path" and not value.strip():
            return "the path is empty"
    except ValueError as err:
        msg = str(err)
        if "is not" in msg:
            return msg
        article = "an" if spec.type[0] in "ai" else "a"
        return f"'{value}' is not {article} {spec.type}"
    return None
