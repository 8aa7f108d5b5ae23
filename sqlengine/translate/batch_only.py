"""Operators that run in batch mode (``SET 'execution.runtime-mode' = 'batch'``) on Spark's
window functions: OVER aggregates, Top-N and deduplication by rank, ORDER BY ... LIMIT; a ranking
whose rows come straight from a scan breaks ties in the order the scan read them
(``planner.analysis.arrival``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from planner.analysis.arrival import arrival_kept
from planner.logical.operators import Deduplicate, OverAggregate, Sort, TopN
from planner.logical.specs import AggCall, AggFunc
from sqlengine.translate import collection_aggregates, variance
from sqlengine.translate.core import Rel, Translator
from sqlengine.translate.expressions import agg_sql, quote

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, WindowSpec

    from sqlengine.translate.expressions import SparkExpressions

RANK = {AggFunc.ROW_NUMBER: "row_number", AggFunc.RANK: "rank", AggFunc.DENSE_RANK: "dense_rank"}


def _order(order: tuple[tuple[str, bool], ...]) -> list[Column]:
    from pyspark.sql import functions as F

    return [F.col(quote(name)).desc_nulls_last() if desc else F.col(quote(name)).asc_nulls_first() for name, desc in order]


def _arrival(t: Translator, node: TopN | Deduplicate | Sort, df: DataFrame) -> tuple[DataFrame, list[Column], str | None]:
    """``df`` with a sequence number of arrival where ``node`` breaks its ties by it, the order
    that does (the latest arrival first for a deduplication keeping the last row), its column."""
    from pyspark.sql import functions as F

    if not arrival_kept(node):
        return df, [], None
    seq = t.fresh("arrival")
    last = isinstance(node, Deduplicate) and node.keep_last
    return df.withColumn(seq, F.monotonically_increasing_id()), [F.col(quote(seq)).desc() if last else F.col(quote(seq)).asc()], seq


def _rank(func: AggFunc) -> Column:
    from pyspark.sql import functions as F

    rank: Callable[[], Column] = getattr(F, RANK[func])
    return rank()


def translate_over(t: Translator, node: OverAggregate) -> Rel:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    partition = [F.col(quote(k)) for k in node.partition_keys]
    spec = Window.partitionBy(*partition).orderBy(*_order(node.order or ((node.order_field, False),)))
    if node.rows:
        start = Window.unboundedPreceding if node.preceding is None else -node.preceding
        spec = spec.rowsBetween(start, Window.currentRow)
    elif node.preceding is None:
        spec = spec.rangeBetween(Window.unboundedPreceding, Window.currentRow)
    else:  # RANGE over a time column: order by its epoch milliseconds
        ms = F.unix_millis(F.col(quote(node.order_field)))
        spec = Window.partitionBy(*partition).orderBy(ms).rangeBetween(-node.preceding, 0)
    exprs = t.exprs(node)
    cols = [F.col(quote(c)) for c in rel.columns]
    df = rel.df
    for a in node.aggs:
        if a.func in RANK:
            cols.append(_rank(a.func).over(Window.partitionBy(*partition).orderBy(*_order(node.order))).alias(a.name))
        elif a.func in (AggFunc.LAG, AggFunc.LEAD):  # no frame: Spark refuses one for them, as Calcite does
            cols.append(F.expr(agg_sql(exprs, a)).over(Window.partitionBy(*partition).orderBy(*_order(node.order))).alias(a.name))
        elif a.func == AggFunc.AVG and a.args and not a.distinct and exprs.integral(a.args[0]):
            # Flink's AVG of integers truncates (sum DIV count): two window sums, divided after
            total, count = t.fresh("sum"), t.fresh("count")
            arg = exprs.sql(a.args[0])
            df = df.withColumn(total, F.expr(f"sum({arg})").over(spec)).withColumn(count, F.expr(f"count({arg})").over(spec))
            cols.append(F.expr(f"{quote(total)} div {quote(count)}").alias(a.name))
        elif (a.func in variance.FUNCTIONS or a.func in collection_aggregates.FUNCTIONS) and a.args:
            df, col = _composed(t, exprs, df, spec, a)
            cols.append(col.alias(a.name))
        else:
            cols.append(F.expr(agg_sql(exprs, a)).over(spec).alias(a.name))
    return t.with_columns(rel.but(df, rel.columns), cols, tuple(node.field_names()))


def _composed(t: Translator, exprs: SparkExpressions, df: DataFrame, spec: WindowSpec, a: AggCall) -> tuple[DataFrame, Column]:
    """An aggregate composed of Spark's aggregates (``sqlengine.translate.variance`` and
    ``collection_aggregates``) over a window: each aggregate call over the window as a column first
    (``over`` takes a bare aggregate call), then the expression over those columns."""
    from pyspark.sql import functions as F

    parts: list[tuple[str, str]] = []

    def part(call: str) -> str:
        parts.append((t.fresh("part"), call))
        return quote(parts[-1][0])

    args = [exprs.sql(x) for x in a.args]
    if a.func in variance.FUNCTIONS:
        text = variance.over_variance_sql(a.func, args[0], exprs.type(a.args[0]), part)
    else:
        text = collection_aggregates.collection_sql(a, args, [exprs.type(x) for x in a.args], exprs.sql(a.filter) if a.filter is not None else None, part)
    for name, call in parts:
        df = df.withColumn(name, F.expr(call).over(spec))
    return df, F.expr(text)


def translate_rank_batch(t: Translator, node: TopN | Deduplicate) -> Rel:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    order: tuple[tuple[str, bool], ...]
    if isinstance(node, Deduplicate):
        keys, order, n, func = node.keys, ((node.order_field, node.keep_last),), 1, AggFunc.ROW_NUMBER
    else:
        keys, order, n, func = node.partition_keys, node.order, node.n, node.rank_func
    df, ties, _ = _arrival(t, node, rel.df)
    window = Window.partitionBy(*[F.col(quote(k)) for k in keys]).orderBy(*_order(order), *ties)
    rank = node.rank_field or t.fresh("rank")
    ranked = df.withColumn(rank, _rank(func).over(window).cast("bigint")).filter(F.col(quote(rank)) <= n)
    cols = [F.col(quote(f.name)) for f in node.fields]
    if node.window is None:
        return Rel(ranked.select(*cols), tuple(node.field_names()))
    # a window ranking carries its window on, as in streaming mode
    struct = rel.windows[node.window.id]
    return Rel(ranked.select(*cols, F.col(quote(struct))), tuple(node.field_names()), {node.window.id: struct})


def translate_sort(t: Translator, node: Sort) -> Rel:
    rel = t.translate(node.input)
    df, ties, seq = _arrival(t, node, rel.df)
    df = df.orderBy(*_order(node.order), *ties)
    df = df.limit(node.limit) if node.limit is not None else df
    return Rel(df.drop(seq) if seq is not None else df, rel.columns, rel.windows, rel.session_times)
