"""Windows on a TIMESTAMP_LTZ in a zone whose offset changes (daylight saving time), on Spark.

Flink assigns such a window on the zone's wall clock: a day window runs from midnight to
midnight (23 or 25 hours), and the autumn's repeated hour is one window holding both instant
hours' rows. Its window_start and window_end are wall times; window_time is the instant of its
last wall instant (the first, when that wall time is repeated); it fires when the watermark
reaches the *second* instant of that last wall time, so the repeated hour's rows are all in
(where the zone's current rules have daylight saving time, as Flink's ``useDaylightTime``;
checked with PyFlink 2.3, conformance queries z04-z12).

On Spark each row is given its windows' wall bounds (from its wall time, Spark's
from_utc_timestamp), and a hidden window struct of one millisecond at the instant the window
fires: it carries the watermark mark, so Spark releases the window, and drops a late row, when
the watermark passes that instant, as for every other window (sqlengine.translate.windows).
Two windows can close at one instant (on a spring-forward day, those ending at 03:00 and 04:00):
aggregations and rankings group on the struct and the wall bounds together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from planner.logical import typing as T
from planner.logical.operators import window_time_field
from planner.logical.specs import WindowKind, WindowSpec
from planner.time_zone import observes_dst, offsets_ms
from sqlengine.translate.core import unreachable
from sqlengine.translate.event_time import with_column, without_event_time
from sqlengine.translate.expressions import quote

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from planner.logical.operators import Node
    from sqlengine.translate.core import Translator


def bounds_zone(t: Translator, node: Node, spec: WindowSpec) -> str | None:
    """The zone whose wall times a window's bounds are (one on a TIMESTAMP_LTZ in
    'table.local-time-zone'), for the changelog operators that close it; None: instants."""
    f = window_time_field(node, spec)
    if t.time_zone == "UTC" or f is None or not T.is_type(f.type, exp.DType.TIMESTAMPLTZ):
        return None
    return t.time_zone


def wall_millis(time: Column, zone: str) -> Column:
    """The zone's wall time at an instant, as ms since 1970-01-01 00:00."""
    from pyspark.sql import functions as F

    return F.unix_millis(F.from_utc_timestamp(time, zone))


def instant(wall: Column, zone: str, later: bool = False) -> Column:
    """The instant of a wall time (ms) as a timestamp: Spark's to_utc_timestamp is Java's
    atZone (a repeated wall time's first instant, a gap's moved forward); ``later``: a repeated
    wall time's second instant (each of the zone's offsets tried: the latest that gives the wall
    time back)."""
    from pyspark.sql import functions as F

    at = F.timestamp_millis(wall)
    first = F.to_utc_timestamp(at, zone)
    if not later:
        return first
    tries = [F.when(F.from_utc_timestamp(F.timestamp_millis(wall - o), zone) == at, F.timestamp_millis(wall - o))
             for o in sorted(offsets_ms(zone))]
    return F.greatest(first, *tries)


def spans(node: Node, spec: WindowSpec, wall: Column) -> Column:
    """The (s, e) wall bounds, in ms, of every window holding the wall time ``wall``."""
    from pyspark.sql import functions as F

    size, offset = spec.size_ms or 1, spec.offset_ms

    def span(start: Column, end: Column) -> Column:
        return F.struct(start.alias("s"), end.alias("e"))

    if spec.kind == WindowKind.TUMBLE:  # (a row without a time is in no window, as Spark's window() has it)
        start = wall - F.pmod(wall - offset, F.lit(size))
        return F.when(wall.isNotNull(), F.array(span(start, start + size)))
    if spec.kind == WindowKind.HOP:
        slide = spec.slide_ms or 1
        last = wall - F.pmod(wall - offset, F.lit(slide))  # the latest start at or before the time
        first = last - (-(-size // slide) - 1) * slide
        starts = F.filter(F.sequence(first, last, F.lit(slide).cast("bigint")), lambda s: s + size > wall)
        return F.transform(starts, lambda s: span(s, s + size))
    if spec.kind == WindowKind.CUMULATE:
        step = spec.step_ms or 1
        start = wall - F.pmod(wall - offset, F.lit(size))
        first = F.floor((wall - start) / step) + 1  # the first window [S, S + k*step) holding it
        return F.transform(F.sequence(first, F.lit(size // step).cast("bigint")), lambda k: span(start, start + k * step))
    raise unreachable(node, f"a {spec.kind.value} window on the wall clock")


def assign(t: Translator, node: Node, df: DataFrame, spec: WindowSpec, time: Column, zone: str, names: list[str],
           struct: str) -> DataFrame:
    """``df`` with a row per window of its time: the window's struct (named ``struct``; Spark's
    window of one ms at the instant it fires, with the time column's watermark mark), then
    window_start, window_end (wall times) and window_time (an instant), named ``names``."""
    from pyspark.sql import functions as F

    t0, span, fires = t.fresh("t"), t.fresh("span"), t.fresh("fires")
    meta = df.select(time.alias(t0)).schema[t0].metadata  # the watermark mark of the time column
    df = without_event_time(df).withColumn(span, F.explode(spans(node, spec, wall_millis(time, zone))))
    start, end = F.col(f"{span}.s"), F.col(f"{span}.e")
    df = with_column(df, fires, instant(end - 1, zone, later=observes_dst(zone)).alias(fires, metadata=meta))
    df = with_column(df, struct, F.window(F.col(fires), "1 millisecond"))
    begin, finish, time_name = names
    return df.select(
        *[F.col(quote(c)) for c in df.columns if c not in (span, fires)],
        F.timestamp_millis(start).alias(begin), F.timestamp_millis(end).alias(finish),
        instant(end - 1, zone).alias(time_name),
    )
