"""Stateless operators: Calc (filter + projection), UNION ALL, VALUES, UNNEST."""

from __future__ import annotations

from pyspark.sql import functions as F

from planner.binder.joins import conjuncts
from planner.logical.operators import Calc, Correlate, Scan, Union, Values
from sqlengine.translate.core import Translator, hidden, visible, without_event_time
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import is_plain_column, quote


def translate_calc(t: Translator, node: Calc):  # type: ignore[no-untyped-def]
    if t.streaming and node.condition is not None and isinstance(node.input, Scan):
        # Spark's own pushdown does the same, except in a run that carries an end-of-input marker
        # (jobs.NO_PUSHDOWN); there a generator would make every kind of row to drop most of them
        t.pushed[id(node.input)] = tuple(conjuncts(node.condition))
    df = t.translate(node.input)
    exprs = t.exprs(node)
    if node.condition is not None:
        df = df.filter(F.expr(exprs.sql(node.condition)))
    if [n for n, _ in node.projections] == visible(df) and all(
        is_plain_column(e) and e.name == n for n, e in node.projections
    ):
        return df  # the columns as they are: a select would only cost Spark another analysis
    cols = []
    for name, e in node.projections:
        if is_plain_column(e):
            cols.append(F.col(quote(e.name)).alias(name))
        else:
            cols.append(F.expr(exprs.sql(e)).alias(name))
    cols += [F.col(quote(h)) for h in hidden(df) if h not in dict(node.projections)]
    return df.select(*cols)


def translate_union(t: Translator, node: Union):  # type: ignore[no-untyped-def]
    names = node.field_names()
    out = None
    for child in node.children:
        df = t.translate(child)
        cols = [F.col(quote(c)).alias(n) for c, n in zip(visible(df), names)]
        df = df.select(*cols)
        out = df if out is None else out.unionByName(df)
    if not node.all:
        out = without_event_time(out).dropDuplicates()
    return out


def translate_values(t: Translator, node: Values):  # type: ignore[no-untyped-def]
    exprs = t.join_exprs(node)
    rows = []
    for row in node.rows:
        rows.append(F.struct(*[F.expr(exprs.sql(v)).alias(f.name) for v, f in zip(row, node.fields)]))
    df = t.spark.range(1).select(F.explode(F.array(*rows)).alias("__row"))
    return df.select(*[F.col(f"__row.{quote(f.name)}").alias(f.name) for f in node.fields])


def translate_correlate(t: Translator, node: Correlate):  # type: ignore[no-untyped-def]
    if node.call.key != "unnest":
        raise TranslationError("LATERAL TABLE needs a user-defined table function, which sqlengine cannot run yet", node.origin)
    df = t.translate(node.input)
    exprs = t.exprs(node)
    arrays = node.call.expressions
    if len(arrays) != 1:
        raise TranslationError("UNNEST of several arrays at once is not supported yet", node.origin)
    new_fields = node.fields[len(node.input.fields):]
    explode = F.explode_outer if node.outer else F.explode
    exploded = df.withColumn("__elem", explode(F.expr(exprs.sql(arrays[0]))))
    base = [F.col(quote(c)) for c in df.columns]
    if len(new_fields) == 1:
        extra = [F.col("__elem").alias(new_fields[0].name)]
    else:
        members = exploded.schema["__elem"].dataType.fieldNames()
        extra = [F.col(f"__elem.{quote(m)}").alias(f.name) for m, f in zip(members, new_fields)]
    return exploded.select(*base, *extra)
