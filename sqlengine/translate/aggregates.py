"""Unbounded keyed operators on Spark: group aggregation (an upsert stream in Spark's update
mode), SELECT DISTINCT (dropDuplicates, insert-only), deduplication and a Top-1 per key.

Keep-first on processing time is Spark's dropDuplicates (the first arrival). Keep-first on event
time, keep-last, and Top-1 are "best row per key so far", an aggregation with max_by emitted as
an upsert on the key: when a better row arrives the key's row is replaced, which is exactly the
changelog Flink emits (-U/+U) once applied to a table. Ties: of rows equal on the order, the row
of the earlier micro-batch stays (keeping the last row: of the later), as Flink keeps the first
to arrive; the ordering ends in the micro-batch's time. Within one micro-batch max_by keeps the
last of tied rows it reads, so where the first is to stay the ordering ends in each row's arrival
number (``Physical.ties_by_arrival``: Spark allows no monotonically_increasing_id on a stream;
sqlengine/jvm/Arrival.java numbers the rows of each partition as they come).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from planner.analysis.physical import later_wins
from planner.logical import typing as T
from planner.logical.operators import Deduplicate, GroupAggregate, Node, TopN
from planner.problems import PlanningError
from sqlengine.translate.core import Rel, Translator, unreachable
from sqlengine.translate.event_time import without_event_time
from sqlengine.translate.expressions import agg_sql, quote

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def translate_group_aggregate(t: Translator, node: GroupAggregate) -> Rel:
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    df = without_event_time(rel.df, node.keys)
    names = tuple(node.field_names())
    if node.distinct_only:
        return Rel(df.select(*[F.col(quote(k)) for k in node.keys]).dropDuplicates(list(node.keys)), names)
    exprs = t.exprs(node)
    aggs = [F.expr(agg_sql(exprs, a)).alias(a.name) for a in node.aggs] or [F.count(F.lit(1)).alias(t.fresh("n"))]
    out = df.groupBy(*[F.col(quote(k)) for k in node.keys]).agg(*aggs)
    return Rel(out.select(*[F.col(quote(n)) for n in names]), names)


def _ordering(node: Node, order: tuple[tuple[str, bool], ...], batch: str, later_wins: bool, arrival: str | None) -> Column:
    """One comparable column, never NULL, whose maximum is the first row by ``order`` with
    Flink's NULL ordering (NULLs first ascending, last descending, as the batch ROW_NUMBER).
    Each key is a NULL flag and the value: max_by skips rows whose ordering is NULL, so a bare
    NULL key would lose a NULL-first row, or lose every row of a key whose values are all NULL.
    ``batch``, the micro-batch's time, breaks ties: the earlier batch's row wins, or the
    later's with ``later_wins``; then ``arrival``, the row's number: the earlier wins."""
    from pyspark.sql import functions as F

    parts: list[Column] = []
    for name, desc in order:
        f = node.inputs[0].field(name)
        col = F.col(quote(name))
        parts.append(col.isNotNull() if desc else col.isNull())  # NULLs last descending, first ascending
        if desc:
            parts.append(col)
        elif f is not None and T.is_type(f.type, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL):
            parts.append(-col)
        elif f is not None and T.is_type(f.type, *T.TIMESTAMPS):
            parts.append(-F.unix_micros(col))
        elif f is not None and T.is_type(f.type, exp.DType.DATE):
            parts.append(-F.unix_date(col))
        else:
            raise unreachable(node, f"ordering by `{name}` ascending")
    parts.append(F.col(quote(batch)) if later_wins else -F.col(quote(batch)))
    if arrival is not None:
        parts.append(-F.col(quote(arrival)))
    return F.struct(*parts)


def _best_row(t: Translator, node: TopN | Deduplicate, keys: tuple[str, ...], order: tuple[tuple[str, bool], ...]) -> Rel:
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    df = without_event_time(rel.df, keys)
    row = F.struct(*[F.col(quote(c)) for c in rel.columns if c != node.rank_field])
    # the micro-batch's time: a streaming query's current_timestamp (Spark allows no
    # monotonically_increasing_id on a stream)
    batch = t.fresh("batch")
    df = df.withColumn(batch, F.unix_micros(F.current_timestamp()))
    physical = t.physical.get(node.node_id)
    arrival = None
    if physical is not None and physical.ties_by_arrival:
        arrival = t.fresh("arrival")
        df = _numbered(t, node, df, arrival)
    best = t.fresh("best")
    ordering = _ordering(node, order, batch, later_wins(node), arrival)
    grouped = df.groupBy(*[F.col(quote(k)) for k in keys]).agg(F.max_by(row, ordering).alias(best))
    out = [
        F.lit(1).cast("bigint").alias(f.name) if f.name == node.rank_field else F.col(f"{quote(best)}.{quote(f.name)}").alias(f.name)
        for f in node.fields
    ]
    return Rel(grouped.select(*out), tuple(node.field_names()))


def _numbered(t: Translator, node: Node, df: DataFrame, name: str) -> DataFrame:
    from sqlengine.jvm import BuildFailed
    from sqlengine.jvm.spark import numbered

    try:
        return numbered(t.spark, df, name)
    except BuildFailed as err:
        raise PlanningError(str(err), node.origin) from None


def translate_deduplicate(t: Translator, node: Deduplicate) -> Rel:
    from pyspark.sql import functions as F

    if node.window is not None:
        from sqlengine.translate.windows import translate_window_rank

        return translate_window_rank(t, node)
    if not node.keep_last and node.on_proctime:
        rel = t.translate(node.input)
        out = without_event_time(rel.df, node.keys).dropDuplicates(list(node.keys))
        if node.rank_field:
            out = out.withColumn(node.rank_field, F.lit(1).cast("bigint"))
        return Rel(out.select(*[F.col(quote(f.name)) for f in node.fields]), tuple(node.field_names()))
    return _best_row(t, node, node.keys, ((node.order_field, node.keep_last),))


def translate_topn(t: Translator, node: TopN) -> Rel:
    if node.window is not None:
        from sqlengine.translate.windows import translate_window_rank

        return translate_window_rank(t, node)
    if not node.top1:
        raise unreachable(node, "a Top-N other than a ROW_NUMBER Top-1 on a stream")
    return _best_row(t, node, node.partition_keys, node.order)
