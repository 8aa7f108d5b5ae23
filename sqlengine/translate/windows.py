"""Windows on Spark: a window TVF adds the window struct (a hidden column carrying Spark's
watermark metadata, tracked by window id) and window_start / window_end / window_time; a window
aggregation groups on that struct, so Spark releases each window once the watermark passes its
end. Window Top-N and window deduplication aggregate each window's rows and emit the ranked ones
at window end."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from planner.logical.fields import WindowRole
from planner.logical.operators import Deduplicate, Node, TopN, WindowAggregate, WindowTVF, window_on_proctime
from planner.logical.specs import AggFunc, WindowKind, WindowSpec
from planner.time_zone import fixed_offset_ms
from sqlengine.translate import wall_windows
from sqlengine.translate.core import Rel, Translator, unreachable
from sqlengine.translate.event_time import with_column, without_event_time
from sqlengine.translate.expressions import agg_sql, quote

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def _ms(ms: int | None) -> str:
    return f"{ms or 0} milliseconds"


@dataclass(frozen=True)
class Zone:
    """Where a window's edges fall: on a TIMESTAMP_LTZ in 'table.local-time-zone' Flink aligns
    them to the zone's wall clock. A zone of one offset moves Spark's windows (aligned to UTC)
    by it; one whose offset changes has them assigned on the wall clock (``wall``:
    sqlengine.translate.wall_windows)."""

    shift: int = 0  # ms Spark's window moves
    name: str | None = None  # the zone window_start and window_end are written in
    wall: bool = False


def zone_of(t: Translator, node: Node, spec: WindowSpec) -> Zone:
    zone = wall_windows.bounds_zone(t, node, spec)
    if zone is None:
        return Zone()
    fixed = fixed_offset_ms(zone)
    if spec.kind == WindowKind.SESSION:
        # the planner runs these on the changelog operator, which merges on the wall clock; a batch
        # query's PROCTIME() is one instant, whose rows share one session in any zone
        if fixed is None and not window_on_proctime(node, spec):
            raise unreachable(node, f"a session window in {zone}, whose offset changes")
        return Zone(0, zone)
    return Zone(fixed, zone) if fixed is not None else Zone(0, zone, wall=True)


def window_struct(node: Node, spec: WindowSpec, time: Column, shift: int = 0) -> Column:
    from pyspark.sql import functions as F

    if spec.kind == WindowKind.SESSION:
        return F.session_window(time, _ms(spec.gap_ms))
    if spec.kind not in (WindowKind.TUMBLE, WindowKind.HOP):
        raise unreachable(node, f"a {spec.kind.value} window struct")
    slide = (spec.size_ms if spec.kind == WindowKind.TUMBLE else spec.slide_ms) or 1
    return _spark_window(time, spec.size_ms, spec.slide_ms if spec.kind == WindowKind.HOP else None, (spec.offset_ms - shift) % slide)


def _spark_window(time: Column, size_ms: int | None, slide_ms: int | None, start_ms: int) -> Column:
    """Spark's window struct; its start time only when not 0 (the plan Spark shows stays plain)."""
    from pyspark.sql import functions as F

    return F.window(time, _ms(size_ms), _ms(slide_ms) if slide_ms else None, _ms(start_ms) if start_ms else None)


def time_column(rel: Rel, node: Node, name: str) -> Column:
    """The time column a window is assigned on; a window_time of an earlier window is read
    from that window's struct with Spark's window_time(), which keeps the watermark."""
    from pyspark.sql import functions as F

    f = node.field(name)
    if f is not None and f.window is not None and f.window.role == WindowRole.TIME:
        struct = rel.windows.get(f.window.window_id)
        if struct is not None:
            return F.window_time(F.col(quote(struct)))
    return F.col(quote(name))


def _window_columns(w: str, names: list[str], spec: WindowSpec | None = None, shift: int = 0, zone: str | None = None) -> list[Column]:
    """window_start and window_end (wall times: in the zone when the window is on an LTZ) and
    window_time (an instant)."""
    from pyspark.sql import functions as F

    start, end, time = names
    first = F.col(f"{quote(w)}.start")
    if spec is not None and spec.kind == WindowKind.CUMULATE:
        first = _cumulate_start(F.col(f"{quote(w)}.end") - F.expr("INTERVAL 1 MILLISECOND"), spec, shift)
    last = F.col(f"{quote(w)}.end")
    return [
        (F.from_utc_timestamp(first, zone) if zone else first).alias(start),
        (F.from_utc_timestamp(last, zone) if zone else last).alias(end),
        (F.col(f"{quote(w)}.end") - F.expr("INTERVAL 1 MILLISECOND")).alias(time),
    ]


def _cumulate_start(time: Column, spec: WindowSpec, shift: int = 0) -> Column:
    """The start of the max-size window holding ``time``: where every cumulating window of it starts."""
    from pyspark.sql import functions as F

    size = spec.size_ms or 1
    offset = spec.offset_ms - shift
    ms = F.unix_millis(time) - offset
    return F.timestamp_millis(F.floor(ms / size) * size + offset)


def _cumulate(t: Translator, df: DataFrame, spec: WindowSpec, time: Column, w: str, shift: int = 0) -> DataFrame:
    """CUMULATE has no Spark window: a row at ts goes to every window [S, S + k*step) of its
    max-size window [S, S + size) that ends after ts. Each copy gets the last instant of its window
    (S + k*step - 1 ms) as its event time (the source's watermark mark moves to it), and the
    window struct is Spark's tumbling window of one step over it: its end is the cumulating
    window's end, and Spark releases it once the source's watermark passes that end, as Flink
    closes a cumulating window."""
    from pyspark.sql import functions as F

    step, size = spec.step_ms or 1, spec.size_ms or 1
    t0, k, c = t.fresh("t"), t.fresh("k"), t.fresh("c")
    meta = df.select(time.alias(t0)).schema[t0].metadata  # the watermark mark of the time column
    df = without_event_time(df)
    start = _cumulate_start(time, spec, shift)
    first = F.floor((F.unix_millis(time) - F.unix_millis(start)) / step) + 1  # the first window [S, S + k*step) holding ts
    df = df.withColumn(k, F.explode(F.sequence(first.cast("int"), F.lit(size // step))))
    last = F.timestamp_millis(F.unix_millis(start) + F.col(k) * step - 1)
    df = with_column(df, c, last.alias(c, metadata=meta)).drop(k)
    start_time = (spec.offset_ms - shift) % step
    return with_column(df, w, _spark_window(F.col(c), step, None, start_time)).drop(c)


def translate_tvf(t: Translator, node: WindowTVF) -> Rel:
    """As in Flink, the time column a window TVF reads is a plain timestamp in its output (the
    window carries the event time): a stream with two event-time columns, e.g. a window join that
    selects ``ts``, fails in Spark with MULTIPLE_EVENT_TIME_COLUMNS."""
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    spec = node.window
    time = time_column(rel, node.input, spec.time_field)
    if spec.kind == WindowKind.SESSION:
        # Spark assigns session windows only while aggregating; the aggregation does it
        session_time = t.fresh("t")
        df = without_event_time(with_column(rel.df, session_time, time), [spec.time_field])
        names = rel.columns + tuple(f.name for f in node.fields[-3:])
        start, end, wtime = names[-3:]
        # the window columns of a SESSION TVF exist only after its aggregation: placeholders here
        placeholders = [F.lit(None).cast("timestamp").alias(start), F.lit(None).cast("timestamp").alias(end),
                        F.lit(None).cast("timestamp").alias(wtime)]
        df = df.select(*[F.col(quote(c)) for c in df.columns], *placeholders)
        return replace(rel.but(df, names), session_times={**rel.session_times, spec.id: session_time})
    w = t.fresh("w")
    zone = zone_of(t, node, spec)
    window_names = [f.name for f in node.fields[-3:]]
    if zone.wall and zone.name is not None:
        df = wall_windows.assign(t, node, rel.df, spec, time, zone.name, window_names, w)
        return replace(rel.but(df, rel.columns + tuple(window_names)), windows={**rel.windows, spec.id: w})
    if spec.kind == WindowKind.CUMULATE:
        df = _cumulate(t, rel.df, spec, time, w, zone.shift)
    else:
        df = without_event_time(with_column(rel.df, w, window_struct(node, spec, time, zone.shift)), [spec.time_field])
    df = df.select(*[F.col(quote(c)) for c in df.columns], *_window_columns(w, window_names, spec, zone.shift, zone.name))
    return replace(rel.but(df, rel.columns + tuple(window_names)), windows={**rel.windows, spec.id: w})


def translate_window_aggregate(t: Translator, node: WindowAggregate) -> Rel:
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    spec = node.window
    struct = rel.windows.get(spec.id)
    w = t.fresh("w")
    zone = zone_of(t, node, spec)
    n_keys = len(node.keys)
    wnames = [f.name for f in node.fields[n_keys : n_keys + 3]]
    if zone.wall and zone.name is not None:
        return _wall_window_aggregate(t, node, rel, zone.name, wnames)
    if struct is not None:
        group = F.col(quote(struct)).alias(w)
    elif spec.id in rel.session_times:  # a SESSION table function: sessions per PARTITION BY key
        group = window_struct(node, spec, F.col(quote(rel.session_times[spec.id]))).alias(w)
    elif node.legacy:  # GROUP BY TUMBLE(ts, ...)
        group = window_struct(node, spec, time_column(rel, node.input, spec.time_field), zone.shift).alias(w)
    else:
        raise unreachable(node, "a window aggregation without its window")
    out = rel.df.groupBy(group, *[F.col(quote(k)) for k in node.keys]).agg(*_aggs(t, node))
    df = out.select(
        *[F.col(quote(k)) for k in node.keys],
        *_window_columns(w, wnames, spec, zone.shift, zone.name),
        *[F.col(quote(a.name)) for a in node.aggs],
        F.col(quote(w)),
    )
    return Rel(df, tuple(node.field_names()), {spec.id: w})


def _aggs(t: Translator, node: WindowAggregate) -> list[Column]:
    from pyspark.sql import functions as F

    exprs = t.exprs(node)
    return [F.expr(agg_sql(exprs, a)).alias(a.name) for a in node.aggs] or [F.count(F.lit(1)).alias(t.fresh("n"))]


def _wall_window_aggregate(t: Translator, node: WindowAggregate, rel: Rel, zone: str, wnames: list[str]) -> Rel:
    """A window on the zone's wall clock: grouped on its struct (the instant it closes) and its
    wall bounds, which the struct alone does not tell apart; window_time from its end."""
    from pyspark.sql import functions as F

    spec = node.window
    struct = rel.windows.get(spec.id)
    df = rel.df
    if struct is not None:  # after the window TVF: its bounds are columns of the rows
        roles = {f.window.role: f.name for f in node.input.fields if f.window is not None and f.window.window_id == spec.id}
        start, end = roles.get(WindowRole.START), roles.get(WindowRole.END)
        if start is None or end is None:
            raise unreachable(node, "a wall-clock window aggregation without its window's bounds")
    elif node.legacy:  # GROUP BY TUMBLE(ts, ...): the rows get their windows here
        struct, start, end = t.fresh("w"), t.fresh("s"), t.fresh("e")
        df = wall_windows.assign(t, node, df, spec, time_column(rel, node.input, spec.time_field), zone,
                                 [start, end, t.fresh("t")], struct)
    else:
        raise unreachable(node, "a window aggregation without its window")
    w = t.fresh("w")
    first, last, time = wnames
    out = df.groupBy(F.col(quote(struct)).alias(w), F.col(quote(start)).alias(first), F.col(quote(end)).alias(last),
                     *[F.col(quote(k)) for k in node.keys]).agg(*_aggs(t, node))
    df = out.select(*[F.col(quote(k)) for k in node.keys], F.col(quote(first)), F.col(quote(last)),
                    wall_windows.instant(F.unix_millis(F.col(quote(last))) - 1, zone).alias(time),
                    *[F.col(quote(a.name)) for a in node.aggs], F.col(quote(w)))
    return Rel(df, tuple(node.field_names()), {spec.id: w})


def _window_top_ties(t: Translator, node: TopN, rel: Rel, window: tuple[int, str], group_keys: list[str],
                     row_cols: list[str]) -> Rel:
    """RANK() = 1 of one order key, without the rank column (the rows holding each window's
    MAX or MIN: planner.logical.window_argmax; a user's RANK is refused on a stream, as in
    Flink): each window's rows and their extreme value, then the rows equal to it."""
    from pyspark.sql import functions as F

    if node.rank_func != AggFunc.RANK or node.n != 1 or node.rank_field is not None or len(node.order) != 1:
        raise unreachable(node, f"{node.rank_func} in a window Top-N")
    (value, desc), = node.order
    window_id, struct = window
    w, rows, best, row = t.fresh("w"), t.fresh("rows"), t.fresh("best"), t.fresh("row")
    extreme = F.max if desc else F.min  # NULLs skipped, as the rewrite's filter left none
    grouped = rel.df.groupBy(F.col(quote(struct)).alias(w), *[F.col(quote(k)) for k in group_keys]).agg(
        F.collect_list(F.struct(*[F.col(quote(c)) for c in row_cols])).alias(rows), extreme(F.col(quote(value))).alias(best),
    )
    top = grouped.select(
        F.col(quote(w)),
        F.explode(F.filter(F.col(quote(rows)), lambda r: r[value] == F.col(quote(best)))).alias(row),
    )
    out_cols = [F.col(f"{quote(row)}.{quote(f.name)}").alias(f.name) for f in node.fields]
    return Rel(top.select(*out_cols, F.col(quote(w))), tuple(node.field_names()), {window_id: w})


def _comparator(order: tuple[tuple[str, bool], ...]) -> str:
    """A Spark lambda comparator for array_sort following ORDER BY (nulls first ascending,
    last descending, as in Flink)."""
    cases = []
    for name, desc in order:
        a, b = f"l.{quote(name)}", f"r.{quote(name)}"
        null_first = "-1" if not desc else "1"
        # two NULLs tie on this key and fall through to the next one
        cases.append(f"WHEN {a} IS NULL AND {b} IS NOT NULL THEN {null_first}")
        cases.append(f"WHEN {a} IS NOT NULL AND {b} IS NULL THEN {'1' if null_first == '-1' else '-1'}")
        lt, gt = ("1", "-1") if desc else ("-1", "1")
        cases.append(f"WHEN {a} < {b} THEN {lt}")
        cases.append(f"WHEN {a} > {b} THEN {gt}")
    return "(l, r) -> CASE " + " ".join(cases) + " ELSE 0 END"


def translate_window_rank(t: Translator, node: TopN | Deduplicate) -> Rel:
    """Window Top-N and window deduplication: rank each window's rows at window end."""
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    spec = node.window
    struct = rel.windows.get(spec.id) if spec is not None else None
    if spec is None or struct is None:
        raise unreachable(node, "a window ranking without its window")
    window_names = {f.name for f in node.input.fields if f.window is not None and f.window.window_id == spec.id}
    keys = node.keys if isinstance(node, Deduplicate) else node.partition_keys
    # the struct is the window, but on a zone's wall clock two windows can close at one instant
    # (ends at 03:00 and 04:00 on a spring-forward day): their bounds tell them apart
    wall = zone_of(t, node, spec).wall
    group_keys = [k for k in keys if k not in window_names or (wall and k in rel.columns)]
    row_cols = [c for c in rel.columns if c != node.rank_field]
    if isinstance(node, TopN) and node.rank_func != AggFunc.ROW_NUMBER:
        return _window_top_ties(t, node, rel, (spec.id, struct), group_keys, row_cols)
    order, n = (((node.order_field, node.keep_last),), 1) if isinstance(node, Deduplicate) else (node.order, node.n)
    w, rows, pos, row = t.fresh("w"), t.fresh("rows"), t.fresh("pos"), t.fresh("row")
    grouped = rel.df.groupBy(F.col(quote(struct)).alias(w), *[F.col(quote(k)) for k in group_keys]).agg(
        F.collect_list(F.struct(*[F.col(quote(c)) for c in row_cols])).alias(rows)
    )
    ranked = grouped.select(
        F.col(quote(w)),
        F.posexplode(F.slice(F.expr(f"array_sort({quote(rows)}, {_comparator(order)})"), 1, n)).alias(pos, row),
    )
    out_cols = [
        (F.col(quote(pos)) + 1).cast("bigint").alias(f.name) if f.name == node.rank_field else F.col(f"{quote(row)}.{quote(f.name)}").alias(f.name)
        for f in node.fields
    ]
    return Rel(ranked.select(*out_cols, F.col(quote(w))), tuple(node.field_names()), {spec.id: w})
