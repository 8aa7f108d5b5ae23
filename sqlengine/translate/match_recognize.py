"""MATCH_RECOGNIZE on Spark: its rows, hashed into buckets by the partition key, go to the
changelog operator ``sqlengine.changelog.match_recognize`` (on a stream with event-time timers:
rows wait for the watermark; ordered by processing time, with processing-time timers; in batch
mode each bucket's rows at once, the watermark at the end of time). Its output is insert-only:
the partition key, then the measures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.logical.fields import Field, TimeKind
from planner.logical.operators import MatchRecognize
from sqlengine.translate.changelog import _arrow, _arrow_schema, _bucket, _out_schema, operator_rows
from sqlengine.translate.core import Rel, Translator
from sqlengine.translate.event_time import WATERMARK_KEY
from sqlengine.translate.expressions import SparkExpressions, quote
from sqlengine.types import spark_type

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from sqlengine.changelog.match_recognize import MatchRecognize as Op

def _prepared(t: Translator, node: MatchRecognize) -> tuple[DataFrame, Op, StructType, dict[str, object]]:
    from pyspark.sql import functions as F

    from sqlengine.changelog.match_recognize import MatchRecognize as Op

    assert node.spec is not None, "a bound MATCH_RECOGNIZE has its spec"
    rel = t.translate(node.input)
    df = rel.df
    in_names = list(rel.columns)
    cols = [F.unix_millis(F.col(quote(node.order_field))).alias("c0")]
    cols += [F.col(quote(c)).alias(f"c{1 + i}") for i, c in enumerate(in_names)]
    # what the operator cannot compute of a row (A.name LIKE 'a%' in A's DEFINE, an aggregate's
    # argument): Spark computes it, as the row's columns after its fields (planner.binder.match_recognize)
    exprs = t.exprs(node)
    cols += [F.expr(exprs.sql(d)).alias(f"c{1 + len(in_names) + i}") for i, d in enumerate(node.spec.derived)]
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.partition_keys]), rel.kind_column(), *cols)
    fields = [(k, df.schema[k].dataType) for k in node.partition_keys]
    fields += [(name, spark_type(m.type)) for name, m in node.spec.measures]
    out = _out_schema(t, t.fresh("kind"), fields)
    width = len(in_names) + len(node.spec.derived)
    types = [_arrow(t, payload.schema[f"c{1 + i}"].dataType) for i in range(width)]
    order = node.input.field(node.order_field)
    processing = order is not None and order.time == TimeKind.PROCTIME
    op = Op(
        [in_names.index(k) for k in node.partition_keys], width, in_names.index(node.order_field), node.spec,
        _arrow_schema(t, out), [(in_names.index(n), d) for n, d in node.then_by], types, processing,
    )
    # processing time: timers time WITHIN out on the clock; a bounded job has none (Spark would
    # run batches for them forever): it ends with what its input completed
    op.timers = processing and not t.bounded
    # Spark's watermark mark of the order's time (MATCH_ROWTIME() carries it on)
    return payload, op, out, dict(df.schema[node.order_field].metadata)


def translate_changelog_match(t: Translator, node: MatchRecognize) -> Rel:
    """Streaming, on event-time timers; batch mode (``translate_match_batch``), each bucket's
    rows at once, then the end of time."""
    from pyspark.sql import functions as F

    payload, op, out, mark = _prepared(t, node)
    result = operator_rows(t, node, payload, op, out)
    names = tuple(node.field_names())
    # MATCH_ROWTIME() is a time attribute: its column gets the watermark mark of the order's time
    # (a match comes out when the watermark passes its last row), so that an event-time operator
    # after the match (a window on it, run by sqlengine's window operator) has Spark's watermark
    assert node.spec is not None
    measured = {name for name, _ in node.spec.measures}
    rowtimes = {f.name for f in node.fields if f.time == TimeKind.ROWTIME and f.name in measured} if t.streaming and WATERMARK_KEY in mark else set()
    # a measure the operator cannot evaluate: from its reads, which came out of the match as
    # measures of their own (planner.binder.match_recognize)
    after = dict(node.spec.after)
    exprs = SparkExpressions({name: Field(name, m.type) for name, m in node.spec.measures}, t.time_zone)
    return Rel(result.select(*[
        F.expr(exprs.sql(after[n])).alias(n) if n in after
        else F.col(quote(n)).alias(n, metadata=mark) if n in rowtimes else F.col(quote(n)) for n in names]), names)


translate_match_batch = translate_changelog_match
