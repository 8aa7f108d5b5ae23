"""Operators that run in batch mode (``SET 'execution.runtime-mode' = 'batch'``) on Spark's
window functions: OVER aggregates, Top-N and deduplication by rank, ORDER BY ... LIMIT."""

from __future__ import annotations

from pyspark.sql import Window
from pyspark.sql import functions as F

from planner.logical.operators import Deduplicate, OverAggregate, Sort, TopN
from sqlengine.translate.core import Translator
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import agg_sql, quote


def _order(order: tuple[tuple[str, bool], ...]):  # type: ignore[no-untyped-def]
    out = []
    for name, desc in order:
        c = F.col(quote(name))
        out.append(c.desc_nulls_last() if desc else c.asc_nulls_first())
    return out


def translate_over(t: Translator, node: OverAggregate):  # type: ignore[no-untyped-def]
    if t.streaming:
        raise TranslationError("Spark Structured Streaming has no OVER windows on streams", node.origin)
    df = t.translate(node.input)
    spec = Window.partitionBy(*[F.col(quote(k)) for k in node.partition_keys]).orderBy(*_order(node.order or ((node.order_field, False),)))
    if node.rows:
        start = Window.unboundedPreceding if node.preceding is None else -node.preceding
        spec = spec.rowsBetween(start, Window.currentRow)
    else:
        if node.preceding is None:
            spec = spec.rangeBetween(Window.unboundedPreceding, Window.currentRow)
        else:
            # RANGE over a time column: order by its epoch milliseconds
            ms = F.unix_millis(F.col(quote(node.order_field)))
            spec = Window.partitionBy(*[F.col(quote(k)) for k in node.partition_keys]).orderBy(ms).rangeBetween(-node.preceding, 0)
    exprs = t.exprs(node)
    cols = [F.col(quote(c)) for c in df.columns]
    for a in node.aggs:
        if a.func in ("ROW_NUMBER", "RANK", "DENSE_RANK"):
            fn = {"ROW_NUMBER": F.row_number, "RANK": F.rank, "DENSE_RANK": F.dense_rank}[a.func]()
            cols.append(fn.over(Window.partitionBy(*[F.col(quote(k)) for k in node.partition_keys]).orderBy(*_order(node.order))).alias(a.name))
        else:
            cols.append(F.expr(agg_sql(exprs, a.func, a.args, a.distinct, a.star, a.filter)).over(spec).alias(a.name))
    return df.select(*cols)


def translate_rank_batch(t: Translator, node: TopN | Deduplicate):  # type: ignore[no-untyped-def]
    df = t.translate(node.input)
    if isinstance(node, Deduplicate):
        keys, order, n, func = node.keys, ((node.order_field, node.keep_last),), 1, "ROW_NUMBER"
    else:
        keys, order, n, func = node.partition_keys, node.order, node.n, node.rank_func
    fn = {"ROW_NUMBER": F.row_number, "RANK": F.rank, "DENSE_RANK": F.dense_rank}[func]()
    window = Window.partitionBy(*[F.col(quote(k)) for k in keys]).orderBy(*_order(order))
    rank = node.rank_field or "__rank"
    ranked = df.withColumn(rank, fn.over(window).cast("bigint")).filter(F.col(rank) <= n)
    return ranked.select(*[F.col(quote(f.name)) for f in node.fields])


def translate_sort(t: Translator, node: Sort):  # type: ignore[no-untyped-def]
    if t.streaming:
        raise TranslationError("ORDER BY on a stream is not supported by Spark Structured Streaming", node.origin)
    df = t.translate(node.input).orderBy(*_order(node.order))
    return df.limit(node.limit) if node.limit is not None else df
