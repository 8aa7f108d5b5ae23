"""Unbounded keyed operators on Spark: group aggregation (an upsert stream in Spark's update
mode), SELECT DISTINCT (dropDuplicates, insert-only), deduplication and a Top-1 per key.

Keep-first on processing time is Spark's dropDuplicates (the first arrival). Keep-first on event
time, keep-last, and Top-1 are "best row per key so far", an aggregation with min_by / max_by
emitted as an upsert on the key: when a better row arrives the key's row is replaced, which is
exactly the changelog Flink emits (-U/+U) once applied to a table.
"""

from __future__ import annotations

from pyspark.sql import functions as F
from sqlglot import exp

from planner.logical import typing as T
from planner.logical.fields import TimeKind
from planner.logical.operators import Deduplicate, GroupAggregate, TopN
from sqlengine.translate.core import Translator, visible, without_event_time
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import agg_sql, quote


SEQ = "__seq"


def translate_group_aggregate(t: Translator, node: GroupAggregate):  # type: ignore[no-untyped-def]
    df = without_event_time(t.translate(node.input), node.keys)
    if node.distinct_only:
        return df.select(*[F.col(quote(k)) for k in node.keys]).dropDuplicates(list(node.keys))
    exprs = t.exprs(node)
    aggs = [F.expr(agg_sql(exprs, a.func, a.args, a.distinct, a.star, a.filter)).alias(a.name) for a in node.aggs]
    if not aggs:
        aggs = [F.count(F.lit(1)).alias("__n")]
    out = df.groupBy(*[F.col(quote(k)) for k in node.keys]).agg(*aggs)
    return out.select(*[F.col(quote(f.name)) for f in node.fields])


def _ordering(node, order: tuple[tuple[str, bool], ...], best_is_max: bool):  # type: ignore[no-untyped-def]
    """One comparable column, never NULL, whose maximum (or minimum) is the first row by ``order``
    with Flink's NULL ordering (NULLs first ascending, last descending, as the batch ROW_NUMBER).
    Each key is a NULL flag and the value: max_by skips rows whose ordering is NULL, so a bare
    NULL key would lose a NULL-first row, or lose every row of a key whose values are all NULL."""
    parts = []
    for name, desc in order:
        f = node.input.field(name)
        col = F.col(quote(name))
        want_high = desc == best_is_max  # the key already grows in the preferred direction
        if name != SEQ:
            null_best = not desc  # ascending: NULL comes first
            parts.append(col.isNull() if null_best == best_is_max else col.isNotNull())
        if want_high:
            parts.append(col)
            continue
        if name == SEQ:
            parts.append(-col)
        elif f is not None and T.is_type(f.type, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL):
            parts.append(-col)
        elif f is not None and T.is_type(f.type, *T.TIMESTAMPS):
            parts.append(-F.unix_micros(col))
        elif f is not None and T.is_type(f.type, exp.DType.DATE):
            parts.append(-F.unix_date(col))
        else:
            raise TranslationError(
                f"Ordering by `{name}` in this direction cannot run on Spark yet (only numbers and times can be reversed)",
                node.origin,
            )
    return F.struct(*parts)


def _best_row(t: Translator, node, keys, order, rank_field):  # type: ignore[no-untyped-def]
    df = without_event_time(t.translate(node.input), keys)
    cols = [c for c in visible(df) if c != rank_field]
    row = F.struct(*[F.col(quote(c)) for c in cols])
    first = node.input.field(order[0][0])
    if first is not None and first.time == TimeKind.PROCTIME:
        # one processing time for a whole batch: the arrival order breaks the tie
        df = df.withColumn(SEQ, F.monotonically_increasing_id())
        order = tuple(order) + ((SEQ, order[0][1]),)
    key = _ordering(node, order, best_is_max=True)
    best = df.groupBy(*[F.col(quote(k)) for k in keys]).agg(F.max_by(row, key).alias("__best"))
    out = []
    for fld in node.fields:
        if fld.name == rank_field:
            out.append(F.lit(1).cast("bigint").alias(fld.name))
        else:
            out.append(F.col(f"__best.{quote(fld.name)}").alias(fld.name))
    return best.select(*out)


def translate_deduplicate(t: Translator, node: Deduplicate):  # type: ignore[no-untyped-def]
    if node.window is not None:
        from sqlengine.translate.windows import translate_window_rank

        return translate_window_rank(t, node)
    order_field = node.input.field(node.order_field)
    if not node.keep_last and order_field is not None and order_field.time == TimeKind.PROCTIME:
        df = without_event_time(t.translate(node.input), node.keys)
        out = df.dropDuplicates(list(node.keys))
        if node.rank_field:
            out = out.withColumn(node.rank_field, F.lit(1).cast("bigint"))
        return out.select(*[F.col(quote(f.name)) for f in node.fields])
    return _best_row(t, node, node.keys, ((node.order_field, node.keep_last),), node.rank_field)


def translate_topn(t: Translator, node: TopN):  # type: ignore[no-untyped-def]
    if node.window is not None:
        from sqlengine.translate.windows import translate_window_rank

        return translate_window_rank(t, node)
    if node.n != 1 or node.rank_func != "ROW_NUMBER":
        raise TranslationError(
            "Top-N produces retractions, which Spark Structured Streaming cannot represent; planned "
            "for a later release (only the top 1 row per key runs today)",
            node.origin,
        )
    return _best_row(t, node, node.partition_keys, node.order, node.rank_field)
