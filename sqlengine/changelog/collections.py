"""ARRAY_AGG, COLLECT, JSON_ARRAYAGG and JSON_OBJECTAGG over a changelog, as Flink's functions with
retraction compute them (read from its ArrayAggFunction, CollectAggFunction and
JsonArrayAgg/JsonObjectAggFunction): the values held in arrival order, a retraction taking back
the earliest equal one; JSON_OBJECTAGG holds one value per key, refuses a key twice (the job
fails, as Flink's does) and writes its keys sorted, as Flink does. The results equal the native
ones of ``sqlengine.translate.collection_aggregates``, JSON text included (written as Flink's JSON
writes it: numbers as Java prints them, a double's exponent with its sign, strings escaped, no
spaces). Used by the group aggregation over updates, OVER windows and windows on processing time
(``aggregate.accumulator``).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Callable, Sequence
from typing import Any

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.values import thaw

FUNCTIONS = ("ARRAY_AGG", "COLLECT", "JSON_ARRAYAGG", "JSON_OBJECTAGG")


class ObjectKeyError(RuntimeError):
    """JSON_OBJECTAGG given a key it holds already, or a NULL key: the job fails, as Flink's does."""


class Collected(Accumulator):
    """[values in arrival order] (JSON_OBJECTAGG: [(key, value)]). ``keep_nulls``: a NULL value is
    held (ARRAY_AGG unless IGNORE NULLS, JSON_ARRAYAGG NULL ON NULL, JSON_OBJECTAGG unless ABSENT
    ON NULL); ``distinct``: the result has each value once, at its first place; ``freeze``: makes a
    value hashable (a struct or list) for COLLECT's counts."""

    def __init__(self, func: str, keep_nulls: bool, distinct: bool, freeze: Callable[[Any], Any] | None) -> None:
        self.func, self.keep_nulls, self.distinct, self.freeze = func, keep_nulls, distinct, freeze

    def new(self) -> Any:
        return []

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        if self.func == "JSON_OBJECTAGG":
            entry = (args[0], args[1])
            if entry[1] is None and not self.keep_nulls:
                return acc
            if sign > 0:
                if entry[0] is None:
                    raise ObjectKeyError("A key of JSON_OBJECTAGG is NULL; JSON object keys cannot be NULL.")
                if any(k == entry[0] for k, _ in acc):
                    raise ObjectKeyError(
                        f"Key '{entry[0]}' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. "
                        "Please ensure that keys are unique."
                    )
                acc.append(entry)
            elif entry in acc:
                acc.remove(entry)
            return acc
        v = args[0]
        if v is None and (not self.keep_nulls or self.func == "COLLECT"):
            return acc
        if sign > 0:
            acc.append(v)
        elif v in acc:
            acc.remove(v)  # the earliest equal value, as Java's List.remove does
        return acc

    def value(self, acc: Any) -> Any:
        held = _first_of_each(acc, self.freeze) if self.distinct else acc
        values = [thaw(v) for v in held] if self.func != "JSON_OBJECTAGG" else held
        if self.func == "ARRAY_AGG":
            return values or None
        if self.func == "COLLECT":
            counts: dict[Any, int] = {}
            for v in acc:
                key = self.freeze(v) if self.freeze is not None else v
                counts[key] = counts.get(key, 0) + 1
            return [(thaw(k), 1 if self.distinct else n) for k, n in counts.items()]  # a MULTISET: a map
        if self.func == "JSON_ARRAYAGG":
            return json_text(values)
        return json_text(dict(sorted(((str(k), thaw(v)) for k, v in values), key=lambda kv: kv[0])))  # keys as strings


def _first_of_each(values: list[Any], freeze: Callable[[Any], Any] | None) -> list[Any]:
    """The first of each distinct value, in order: by its frozen (hashable) form, in one pass; a
    value that cannot be hashed even so is compared with the others of its kind."""
    out: list[Any] = []
    seen: set[Any] = set()
    unhashable: list[Any] = []
    for v in values:
        try:
            key = freeze(v) if freeze is not None else v
            if key in seen:
                continue
            seen.add(key)
        except TypeError:
            if v in unhashable:
                continue
            unhashable.append(v)
        out.append(v)
    return out


def json_text(v: Any) -> str:
    """``v`` as Spark's to_json writes it (and Flink's JSON functions, for these types)."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return java_double(v)
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{json_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(json_text(x) for x in v) + "]"
    if isinstance(v, (dt.datetime, dt.date)):
        return json.dumps(v.isoformat())
    return json.dumps(str(v), ensure_ascii=False)


def java_double(v: float) -> str:
    """Java's Double.toString, with the exponent's sign as Flink's JSON writes it: plain from
    10^-3 up to 10^7, else d.dddE+n or d.dddE-n."""
    if v != v:
        return "NaN"
    if v in (float("inf"), float("-inf")):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0 or 1e-3 <= abs(v) < 1e7:
        text = repr(v)
        return text if "e" not in text else format(decimal.Decimal(text), "f")
    sign, digits, exp = decimal.Decimal(repr(v)).as_tuple()
    assert isinstance(exp, int)
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) - 1 + exp
    return f"{'-' if sign else ''}{ds[0]}.{ds[1:] or '0'}E{'+' if power >= 0 else ''}{power}"
