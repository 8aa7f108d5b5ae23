"""Stateless operators: Calc (filter + projection), UNION, VALUES, UNNEST and table functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.logical.operators import Calc, Correlate, Union, Values
from sqlengine.translate.core import Rel, SourceInfo, Translator, one_batch, unreachable
from sqlengine.translate.event_time import without_event_time
from sqlengine.translate.expressions import is_plain_column, quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame


def translate_calc(t: Translator, node: Calc) -> Rel:
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    exprs = t.exprs(node)
    df = rel.df
    if node.condition is not None:
        df = df.filter(F.expr(exprs.sql(node.condition)))
    names = tuple(n for n, _ in node.projections)
    if names == rel.columns and all(is_plain_column(e) and e.name == n for n, e in node.projections):
        # the columns as they are: a select would only cost Spark another analysis
        return rel.but(df, names)
    cols = [
        F.col(quote(e.name)).alias(name) if is_plain_column(e) else F.expr(exprs.sql(e)).alias(name)
        for name, e in node.projections
    ]
    return t.with_columns(rel.but(df), cols, names)


def translate_union(t: Translator, node: Union) -> Rel:
    from pyspark.sql import functions as F

    names = tuple(node.field_names())
    rels = [t.translate(child) for child in node.children]
    # rows of a changelog keep their kind; the rows of an insert-only branch are +I
    kind = t.fresh("kind") if any(r.kind for r in rels) else None
    out = None
    for rel in rels:
        cols = [F.col(quote(c)).alias(n) for c, n in zip(rel.columns, names, strict=True)]
        df = rel.df.select(*cols, *([rel.kind_column().alias(kind)] if kind else []))
        out = df if out is None else out.unionByName(df)
    assert out is not None
    if not node.all:
        if kind is not None:
            raise unreachable(node, "a UNION (without ALL) of changelogs")
        out = without_event_time(out).dropDuplicates()
    return Rel(out, names, kind=kind)


def translate_values(t: Translator, node: Values) -> Rel:
    from pyspark.sql import functions as F

    exprs = t.join_exprs(node)
    row = t.fresh("row")
    rows = [F.struct(*[F.expr(exprs.sql(v)).alias(f.name) for v, f in zip(r, node.fields, strict=True)]) for r in node.rows]
    df = t.spark.range(1).select(F.explode(F.array(*rows)).alias(row))
    df = df.select(*[F.col(f"{row}.{quote(f.name)}").alias(f.name) for f in node.fields])
    if t.streaming:
        df = _as_stream(t, df)
    return Rel(df, tuple(node.field_names()))


def _as_stream(t: Translator, rows: DataFrame) -> DataFrame:
    """Constant rows as a bounded stream, as Flink's VALUES is in a streaming job (Spark cannot
    write a static DataFrame with writeStream, nor union it with a stream): written once into the
    job's directory, then read back as a file source that ends after its first micro-batch. A
    resumed job reads the same file, so its rows are not read twice."""
    where = t.job_dir / "values" / f"v{t.next_scan_id()}"
    if not (where / "_SUCCESS").exists():
        rows.write.mode("overwrite").parquet(str(where))
    t.sources.append(SourceInfo("VALUES", bounded=True, batches=one_batch))
    return t.spark.readStream.schema(rows.schema).parquet(str(where))


def translate_correlate(t: Translator, node: Correlate) -> Rel:
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructType

    # a Python table function returns the array of the rows it makes for each input row (as a
    # struct each; sqlengine.translate.udfs): exploded as UNNEST's array is
    table_function = node.call.key != "unnest"
    if not table_function and len(node.call.expressions) != 1:
        raise unreachable(node, "UNNEST of several arrays")
    rel = t.translate(node.input)
    exprs = t.exprs(node)
    elem = t.fresh("elem")
    explode = F.explode_outer if node.outer else F.explode
    array = node.call if table_function else node.call.expressions[0]
    exploded = rel.df.withColumn(elem, explode(F.expr(exprs.sql(array))))
    new_fields = node.fields[len(node.input.fields) :]
    if len(new_fields) == 1 and not table_function:
        extra = [F.col(elem).alias(new_fields[0].name)]
    else:
        struct = exploded.schema[elem].dataType
        assert isinstance(struct, StructType)  # the binder made a field per member of a ROW element
        members = struct.fieldNames()
        extra = [F.col(f"{elem}.{quote(m)}").alias(f.name) for m, f in zip(members, new_fields, strict=True)]
    base = [F.col(quote(c)) for c in rel.columns]
    return t.with_columns(rel.but(exploded), [*base, *extra], tuple(node.field_names()))
