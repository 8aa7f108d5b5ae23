"""OVER aggregation over changes on Spark (``sqlengine.changelog.over_changes``): where the
planner decided an OVER runs over changes (its input updates, or its order is no time attribute:
``planner.analysis.physical``), its rows, hashed into buckets by the partition key, go to the
operator with their kind, and its changes come out as rows that carry theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.logical import typing as T
from planner.logical.operators import OverAggregate
from sqlengine.translate.changelog import _arrow, _arrow_schema, _bucket, _out_schema, _packed, _run
from sqlengine.translate.core import Rel, Translator
from sqlengine.translate.expressions import agg_sql, quote

if TYPE_CHECKING:
    from pyspark.sql import Column


def translate_over_changes(t: Translator, node: OverAggregate) -> Rel:
    from pyspark.sql import functions as F

    from sqlengine.changelog.aggregate import AggCallSpec
    from sqlengine.changelog.over_changes import OverChanges
    from sqlengine.changelog.values import Typing

    rel = t.translate(node.input)
    df = rel.df
    in_names = list(rel.columns)
    exprs = t.exprs(node)
    # the result types: those of the native aggregation of the same calls (nothing runs)
    native = df.agg(*[F.expr(agg_sql(exprs, a)).alias(a.name) for a in node.aggs])
    types = {f.name: f.dataType for f in native.schema.fields}
    cols: list[Column] = [_range_value(node).alias("c0")]
    cols += [F.col(quote(c)).alias(f"c{1 + i}") for i, c in enumerate(in_names)]
    specs, positions = [], []
    for call in node.aggs:
        args = [] if call.star else [F.expr(exprs.sql(a)) for a in call.args]
        positions.append(len(cols) if args else None)
        cols += [a.alias(f"c{len(cols) + i}") for i, a in enumerate(args)]
        specs.append(AggCallSpec(call.func.value, call.distinct, call.star, len(args), False, Typing.of(_arrow(t, types[call.name]))))
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.partition_keys]), rel.kind_column(), *cols)
    arg_types = [_arrow(t, payload.schema.fields[2 + i].dataType) if i is not None else None for i in positions]
    kind = t.fresh("kind")
    fields = [(c, df.schema[c].dataType) for c in in_names] + [(a.name, types[a.name]) for a in node.aggs]
    out = _out_schema(t, kind, fields)
    order = node.order or ((node.order_field, False),)
    op = OverChanges(
        [in_names.index(k) for k in node.partition_keys], len(in_names), [(in_names.index(n), d) for n, d in order],
        [_arrow(t, df.schema[c].dataType) for c in in_names], node.rows, node.preceding, specs, arg_types,
        _arrow_schema(t, out),
    )
    result = _run(t, node, _packed(payload), op, out)
    names = tuple(node.field_names())
    return Rel(result.select(*[F.col(quote(n)) for n in names], F.col(kind)), names, kind=kind)


def _range_value(node: OverAggregate) -> Column:
    """What a RANGE frame's size is measured on: a time's epoch milliseconds (the frame's size is
    in milliseconds), a date's too, or the number itself; NULL for a frame without a size."""
    from pyspark.sql import functions as F

    f = node.input.field(node.order_field)
    col = F.col(quote(node.order_field))
    if node.rows or node.preceding is None or f is None:
        return F.lit(None).cast("long")
    if T.is_type(f.type, *T.TIMESTAMPS):
        return F.unix_millis(col)
    if T.is_type(f.type, T.D.DATE):
        return F.unix_date(col).cast("long") * F.lit(86_400_000)
    return col
