"""Windows on Spark: a window TVF adds the window struct (``__w<id>``, carrying Spark's
watermark metadata) and window_start / window_end / window_time; a window aggregation groups on
that struct, so Spark releases each window once the watermark passes its end. Window Top-N and
window deduplication aggregate each window's rows and emit the ranked ones at window end."""

from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from planner.logical.fields import WindowRole
from planner.logical.operators import Deduplicate, Node, TopN, WindowAggregate, WindowKind, WindowSpec, WindowTVF
from sqlengine.translate.core import Translator, hidden, visible, without_event_time
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import agg_sql, quote


def wcol(window_id: int) -> str:
    return f"__w{window_id}"


def _ms(ms: int) -> str:
    return f"{ms} milliseconds"


def window_struct(spec: WindowSpec, time: Column) -> Column:
    offset = _ms(spec.offset_ms) if spec.offset_ms else None
    if spec.kind == WindowKind.TUMBLE:
        return F.window(time, _ms(spec.size_ms), startTime=offset) if offset else F.window(time, _ms(spec.size_ms))
    if spec.kind == WindowKind.HOP:
        if offset:
            return F.window(time, _ms(spec.size_ms), _ms(spec.slide_ms), offset)
        return F.window(time, _ms(spec.size_ms), _ms(spec.slide_ms))
    if spec.kind == WindowKind.SESSION:
        return F.session_window(time, _ms(spec.gap_ms))
    raise TranslationError(f"{spec.kind.value} windows cannot run on Spark yet")


def time_column(t: Translator, node: Node, df, name: str) -> Column:  # type: ignore[no-untyped-def]
    """The time column a window is assigned on; a window_time of an earlier window is read
    from that window's struct with Spark's window_time(), which keeps the watermark."""
    f = node.field(name)
    if f is not None and f.window is not None and f.window.role == WindowRole.TIME:
        src = wcol(f.window.window_id)
        if src in df.columns:
            return F.window_time(F.col(src))
    return F.col(quote(name))


def _window_columns(df, w: str, names: list[str], spec: WindowSpec | None = None):  # type: ignore[no-untyped-def]
    start, end, time = names
    first = F.col(f"{w}.start")
    if spec is not None and spec.kind == WindowKind.CUMULATE:
        first = _cumulate_start(F.col(f"{w}.end") - F.expr("INTERVAL 1 MILLISECOND"), spec)
    return [
        first.alias(start),
        F.col(f"{w}.end").alias(end),
        (F.col(f"{w}.end") - F.expr("INTERVAL 1 MILLISECOND")).alias(time),
    ]


def _cumulate_start(time: Column, spec: WindowSpec) -> Column:
    """The start of the max-size window holding ``time``: where every cumulating window of it starts."""
    ms = F.unix_millis(time) - spec.offset_ms
    return F.timestamp_millis(F.floor(ms / spec.size_ms) * spec.size_ms + spec.offset_ms)


def _cumulate(df, spec: WindowSpec, time: Column, w: str):  # type: ignore[no-untyped-def]
    """CUMULATE has no Spark window: a row at ts goes to every window [S, S + k*step) of its
    max-size window [S, S + size) that ends after ts. Each copy gets the last instant of its window
    (S + k*step - 1 ms) as its event time (the source's watermark mark moves to it), and the
    window struct is Spark's tumbling window of one step over it: its end is the cumulating
    window's end, and Spark releases it once the source's watermark passes that end, as Flink
    closes a cumulating window."""
    t0 = f"__t{spec.id}"
    meta = df.withColumn(t0, time).schema[t0].metadata  # the watermark mark of the time column
    df = without_event_time(df)
    start = _cumulate_start(time, spec)
    ms = F.unix_millis(time) - F.unix_millis(start)
    first = F.floor(ms / spec.step_ms) + 1  # the first window [S, S + k*step) that holds ts
    steps = F.sequence(first.cast("int"), F.lit(spec.size_ms // spec.step_ms))
    k, t = f"__k{spec.id}", f"__c{spec.id}"
    df = df.withColumn(k, F.explode(steps))
    last = F.timestamp_millis(F.unix_millis(start) + F.col(k) * spec.step_ms - 1)
    df = df.withColumn(t, last.alias(t, metadata=meta)).drop(k)
    return df.withColumn(w, F.window(F.col(t), _ms(spec.step_ms))).drop(t)


def translate_tvf(t: Translator, node: WindowTVF):  # type: ignore[no-untyped-def]
    """As in Flink, the time column a window TVF reads is a plain timestamp in its output (the
    window carries the event time): a stream with two event-time columns, e.g. a window join that
    selects ``ts``, fails in Spark with MULTIPLE_EVENT_TIME_COLUMNS."""
    df = t.translate(node.input)
    spec = node.window
    if spec.kind == WindowKind.SESSION:
        # Spark assigns session windows only while aggregating; the aggregate does it
        df = df.withColumn(f"__t{spec.id}", time_column(t, node.input, df, spec.time_field))
        return without_event_time(df, [spec.time_field])
    w = wcol(spec.id)
    time = time_column(t, node.input, df, spec.time_field)
    if spec.kind == WindowKind.CUMULATE:
        df = _cumulate(df, spec, time, w)
    else:
        df = df.withColumn(w, window_struct(spec, time))
        df = without_event_time(df, [spec.time_field])
    names = [f.name for f in node.fields[-3:]]
    keep = [F.col(quote(c)) for c in df.columns]
    return df.select(*keep, *_window_columns(df, w, names, spec))


def translate_window_aggregate(t: Translator, node: WindowAggregate):  # type: ignore[no-untyped-def]
    df = t.translate(node.input)
    spec = node.window
    w = wcol(spec.id)
    if w in df.columns:
        group = F.col(w)
    elif spec.kind == WindowKind.SESSION:
        tvf = f"__t{spec.id}" in df.columns
        time = F.col(f"__t{spec.id}") if tvf else time_column(t, node.input, df, spec.time_field)
        # Spark's session_window makes sessions per group key; a SESSION table function makes them
        # per PARTITION BY key (without one, over all rows), so the two must be the same keys. (The
        # legacy GROUP BY k, SESSION(ts, gap) is per key, as Spark's.)
        if (tvf or spec.partition_keys) and set(spec.partition_keys) != set(node.keys):
            raise TranslationError(
                "A SESSION window runs on Spark only when it is partitioned by exactly the GROUP BY keys "
                "(SESSION(TABLE t PARTITION BY k, ...) ... GROUP BY k, window_start, window_end)",
                node.origin,
            )
        group = window_struct(spec, time).alias(w)
    else:  # legacy GROUP BY TUMBLE(ts, ...)
        group = window_struct(spec, time_column(t, node.input, df, spec.time_field)).alias(w)
    exprs = t.exprs(node)
    aggs = [F.expr(agg_sql(exprs, a.func, a.args, a.distinct, a.star, a.filter)).alias(a.name) for a in node.aggs]
    if not aggs:
        aggs = [F.count(F.lit(1)).alias("__n")]
    out = df.groupBy(group, *[F.col(quote(k)) for k in node.keys]).agg(*aggs)
    n_keys = len(node.keys)
    wnames = [f.name for f in node.fields[n_keys : n_keys + 3]]
    agg_names = [a.name for a in node.aggs]
    return out.select(
        *[F.col(quote(k)) for k in node.keys],
        *_window_columns(out, w, wnames, spec),
        *[F.col(quote(a)) for a in agg_names],
        F.col(w),
    )


def _order_key(node: Node, order: tuple[tuple[str, bool], ...]) -> tuple[str, str]:
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
    return "(l, r) -> CASE " + " ".join(cases) + " ELSE 0 END", ""


def translate_window_rank(t: Translator, node: TopN | Deduplicate):  # type: ignore[no-untyped-def]
    """Window Top-N and window deduplication: rank each window's rows at window end."""
    df = t.translate(node.input)
    spec = node.window
    assert spec is not None
    w = wcol(spec.id)
    if w not in df.columns:
        raise TranslationError("A window Top-N needs the window table function's output as its input", node.origin)
    window_names = {f.name for f in node.input.fields if f.window is not None and f.window.window_id == spec.id}
    keys = node.keys if isinstance(node, Deduplicate) else node.partition_keys
    group_keys = [k for k in keys if k not in window_names]
    rank_field = node.rank_field
    row_cols = [c for c in visible(df) if c != rank_field]
    row = F.struct(*[F.col(quote(c)) for c in row_cols])
    if isinstance(node, Deduplicate):
        order = ((node.order_field, node.keep_last),)
        n = 1
    else:
        if node.rank_func != "ROW_NUMBER":
            raise TranslationError(f"{node.rank_func} in a window Top-N cannot run on Spark yet; use ROW_NUMBER()", node.origin)
        order, n = node.order, node.n
    comparator, _ = _order_key(node.input, order)
    grouped = df.groupBy(F.col(w), *[F.col(quote(k)) for k in group_keys]).agg(F.collect_list(row).alias("__rows"))
    ranked = grouped.select(
        F.col(w),
        F.posexplode(F.slice(F.expr(f"array_sort(__rows, {comparator})"), 1, n)).alias("__pos", "__row"),
    )
    out_cols = []
    for f in node.fields:
        if f.name == rank_field:
            out_cols.append((F.col("__pos") + 1).cast("bigint").alias(f.name))
        else:
            out_cols.append(F.col(f"__row.{quote(f.name)}").alias(f.name))
    return ranked.select(*out_cols, F.col(w))


def strip_hidden(df):  # type: ignore[no-untyped-def]
    return df.drop(*hidden(df))
