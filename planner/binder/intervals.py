"""Interval literals (INTERVAL '10' SECOND, INTERVAL '1 02:00:00' DAY TO SECOND) as milliseconds."""

from __future__ import annotations

import re

from sqlglot import exp

from planner.problems import BindError

UNIT_MS = {
    "MILLISECOND": 1,
    "SECOND": 1000,
    "MINUTE": 60_000,
    "HOUR": 3_600_000,
    "DAY": 86_400_000,
    "WEEK": 7 * 86_400_000,
}


def _unit(name: str) -> str:
    u = name.upper().rstrip("S") if name.upper() not in ("MS",) else "MILLISECOND"
    return {"MILLISECOND": "MILLISECOND", "MILLI": "MILLISECOND"}.get(u, u)


def _day_to_second(text: str, first: str, last: str) -> int:
    # '1 02:03:04.5' DAY TO SECOND, '02:03' HOUR TO MINUTE, '3:04.5' MINUTE TO SECOND, ...
    sign = -1 if text.strip().startswith("-") else 1
    text = text.strip().lstrip("+-")
    order = ["DAY", "HOUR", "MINUTE", "SECOND"]
    parts = re.split(r"[ :]", text)
    units = order[order.index(first) : order.index(last) + 1]
    if len(parts) != len(units):
        raise ValueError(text)
    total = 0.0
    for value, unit in zip(parts, units, strict=True):
        total += float(value) * UNIT_MS[unit]
    return sign * round(total)


def interval_ms(node: exp.Expr) -> int:
    """Milliseconds of a day-time interval literal; BindError for anything else."""
    if isinstance(node, exp.Paren):
        return interval_ms(node.this)
    if isinstance(node, exp.Neg):
        return -interval_ms(node.this)
    if not isinstance(node, exp.Interval):
        raise BindError("Expected an interval literal such as INTERVAL '10' SECOND", node)
    value = node.this
    unit = node.args.get("unit")
    text = value.name if isinstance(value, exp.Literal) else None
    if text is None:
        raise BindError("The interval's value must be a literal such as '10'", node)
    try:
        if isinstance(unit, exp.IntervalSpan):
            return _day_to_second(text, _unit(unit.this.name), _unit(unit.expression.name))
        unit_name = _unit(unit.name) if unit is not None else None
        if unit_name is None:
            # INTERVAL '10 SECOND' (one string)
            m = re.fullmatch(r"\s*([-+]?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*", text)
            if not m:
                raise ValueError(text)
            unit_name = _unit(m.group(2))
            text = m.group(1)
        if unit_name in ("MONTH", "YEAR", "QUARTER"):
            raise BindError(
                f"A {unit_name.lower()} interval has no fixed length in milliseconds; use DAY, HOUR, "
                "MINUTE or SECOND",
                node,
            )
        if unit_name not in UNIT_MS:
            raise ValueError(unit_name)
        return round(float(text) * UNIT_MS[unit_name])
    except (ValueError, IndexError):
        raise BindError(f"Cannot read the interval {node.sql()}", node) from None


def is_interval(node: exp.Expr) -> bool:
    return isinstance(node, exp.Interval) or (
        isinstance(node, (exp.Paren, exp.Neg)) and is_interval(node.this)
    )
