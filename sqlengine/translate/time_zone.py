"""'table.local-time-zone' on Spark (planner.time_zone reads the setting).

The Spark session always runs in UTC: a Flink TIMESTAMP is Spark's TIMESTAMP_NTZ and a
TIMESTAMP_LTZ Spark's TIMESTAMP, so every Spark function reads an LTZ's wall time in UTC. Where
Flink reads an LTZ in the session's zone (a CAST to STRING, TIMESTAMP, DATE or TIME, DATE_FORMAT,
EXTRACT, HOUR and the like, FLOOR/CEIL, a comparison with a TIMESTAMP), the LTZ is first moved
so that its UTC wall time is the zone's (``Local``: Spark's from_utc_timestamp); where Flink
makes an LTZ from a wall time (a CAST from STRING, TIMESTAMP or DATE, FLOOR/CEIL; not
TO_TIMESTAMP_LTZ of text, which Flink 2.3 reads in UTC unless given a zone), the result is moved
back (``Instant``: to_utc_timestamp). FROM_UNIXTIME and UNIX_TIMESTAMP of text write and read
the wall time in the zone; LOCALTIMESTAMP, CURRENT_DATE, LOCALTIME and CURRENT_TIME are the
zone's wall clock. Both follow the zone's rules (Java's): daylight saving time included, a wall time in the gap of a
spring-forward day moved forward, as Flink's ``LocalDateTime.atZone`` moves it.

Windows on an LTZ are aligned to the zone's wall clock in sqlengine.translate.windows (a zone of
one offset) and sqlengine.translate.wall_windows (one with daylight saving time)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from planner.logical import typing as T
from sqlengine.translate.calls import call, lit
from sqlengine.translate.functions import milliseconds, unix_timestamp_text
from sqlengine.translate.lenient_time import read_with_overflow

if TYPE_CHECKING:
    from sqlengine.translate.expressions import SparkExpressions


def marker_type(inner: exp.DataType) -> exp.DataType:
    """A marker's type: an LTZ of its argument's precision."""
    if T.is_type(inner, exp.DType.TIMESTAMPLTZ):
        return inner
    size = inner.expressions[0].copy() if T.is_type(inner, exp.DType.TIMESTAMP) and inner.expressions else None
    return exp.DataType(this=exp.DType.TIMESTAMPLTZ, expressions=[size] if size is not None else [])


class Local(exp.Expression, exp.Func):
    """An LTZ moved so that its wall time in UTC is its wall time in the zone (still typed LTZ)."""

    arg_types = {"this": True, "zone": True}


class Instant(exp.Expression, exp.Func):
    """The instant whose wall time in the zone is ``this``'s wall time in UTC (typed LTZ)."""

    arg_types = {"this": True, "zone": True}


MARKERS = (Local, Instant)

# functions of a wall time: their LTZ argument is read in the zone
_FIELDS = (exp.Year, exp.Month, exp.Quarter, exp.Week, exp.Day, exp.Hour, exp.Minute, exp.Second)
_FIELD_NAMES = frozenset({"DAYOFMONTH", "DAYOFWEEK", "DAYOFYEAR", "DATE_FORMAT"})
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ)


def _ltz(t: exp.DataType) -> bool:
    return T.is_type(t, exp.DType.TIMESTAMPLTZ)


def _wall(t: exp.DataType) -> bool:
    """A wall-time type: TIMESTAMP (no zone), DATE, TIME or text."""
    return T.is_type(t, exp.DType.TIMESTAMP, exp.DType.DATE, exp.DType.TIME, *T.STRINGS)


def localize(node: exp.Expr, exprs: SparkExpressions) -> exp.Expr:
    """``node`` (a copy the caller owns) with the markers where Flink reads or makes an LTZ in
    the zone. Every decision is made on the types of the bound tree before any marker is placed."""
    zone = exprs.zone
    args: list[tuple[exp.Expr, str, int | None]] = []  # (parent, arg name, index) of an LTZ read in the zone
    results: list[tuple[exp.Expr, type[exp.Func]]] = []  # nodes whose result is wrapped

    def read_in_zone(parent: exp.Expr, key: str, index: int | None = None) -> None:
        child = parent.args.get(key) if index is None else parent.args[key][index]
        if isinstance(child, exp.Expr) and _ltz(exprs.value_type(child)):
            args.append((parent, key, index))

    for n in node.walk():
        if isinstance(n, (exp.Cast, exp.TryCast)):
            source = exprs.value_type(n.this)
            if _ltz(source) and _wall(n.to):
                args.append((n, "this", None))
            elif _ltz(n.to) and _wall(source):
                results.append((n, Instant))
        elif isinstance(n, _FIELDS):
            read_in_zone(n, "this")
        elif isinstance(n, exp.Extract):
            read_in_zone(n, "expression")
        elif isinstance(n, (exp.Floor, exp.Ceil)) and n.args.get("to") is not None and _ltz(exprs.type(n.this)):
            args.append((n, "this", None))
            results.append((n, Instant))
        elif isinstance(n, exp.Anonymous) and n.expressions:
            name = n.name.upper()
            if name in _FIELD_NAMES:
                read_in_zone(n, "expressions", 0)
        elif isinstance(n, _COMPARISONS + (exp.Between,)):
            sides = ["this", "expression"] if not isinstance(n, exp.Between) else ["this", "low", "high"]
            types = [exprs.value_type(n.args[k]) for k in sides]
            if any(_ltz(t) for t in types):  # Flink reads the TIMESTAMP side in the zone
                results += [(n.args[k], Instant) for k, t in zip(sides, types, strict=True) if T.is_type(t, exp.DType.TIMESTAMP)]
    for parent, key, index in args:
        child = parent.args[key] if index is None else parent.args[key][index]
        local = Local(zone=exp.Literal.string(zone))
        child.replace(local)
        local.set("this", child)
    for n, kind in results:
        marker = kind(zone=exp.Literal.string(zone))
        if n is node:
            marker.set("this", n)
            node = marker
        else:
            n.replace(marker)
            marker.set("this", n)
    return node


def spark(n: exp.Func, inner: exp.Expr) -> exp.Expr:
    """A marker as Spark's functions, over its argument already rewritten (``inner``)."""
    return call("from_utc_timestamp" if isinstance(n, Local) else "to_utc_timestamp", inner, n.args["zone"].copy())


def unix_timestamp(args: list[exp.Expr], zone: str) -> exp.Expr:
    """UNIX_TIMESTAMP(text [, format]): the text read as a wall time in the zone; Long.MIN_VALUE
    for text it cannot read, as Flink gives (sqlengine.translate.functions: the same in UTC)."""
    text, fmt = unix_timestamp_text(args)
    wall = read_with_overflow("to_timestamp", text, fmt) if len(args) > 1 else call("to_timestamp", text, fmt)
    seconds = call("unix_seconds", call("to_utc_timestamp", wall, lit(zone)))
    read = exp.Coalesce(this=seconds, expressions=[exp.Literal.number(-(2**63))])
    return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=args[0].copy(), expression=exp.Null())), true=read)])


def now(kind: exp.Expr, zone: str) -> exp.Expr | None:
    """LOCALTIMESTAMP, CURRENT_DATE, LOCALTIME and CURRENT_TIME: the wall clock in the zone."""
    here = call("from_utc_timestamp", exp.CurrentTimestamp(), lit(zone))
    if isinstance(kind, exp.Localtimestamp):  # a TIMESTAMP(3), as Flink's
        return milliseconds(exp.Cast(this=here, to=exp.DataType.build("TIMESTAMP_NTZ", dialect="spark")))
    if isinstance(kind, exp.CurrentDate):
        return call("to_date", here)
    if isinstance(kind, (exp.Localtime, exp.CurrentTime)):
        time0 = exp.DataType(this=exp.DType.TIME, expressions=[exp.DataTypeParam(this=exp.Literal.number(0))])
        return exp.Cast(this=exp.Cast(this=here, to=exp.DataType.build("TIMESTAMP_NTZ", dialect="spark")), to=time0)
    return None


def from_unixtime(args: list[exp.Expr], zone: str) -> exp.Expr:
    """FROM_UNIXTIME(seconds [, format]): the instant written as its wall time in the zone."""
    fmt = args[1] if len(args) > 1 else lit("yyyy-MM-dd HH:mm:ss")
    return call("date_format", call("from_utc_timestamp", call("timestamp_seconds", args[0]), lit(zone)), fmt)
