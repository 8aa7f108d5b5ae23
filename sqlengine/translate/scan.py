"""Sources: a connector's DataFrame, then computed columns, then the watermark.

A bounded source in a streaming job whose plan waits on the watermark gets an end-of-input
marker: a second, private file source whose one row carries a timestamp at the end of time. It
is unioned in before the watermark, so that once the real input is consumed the watermark jumps
past every open window and bound and Spark emits everything still held, as Flink does when a
bounded source ends; the marker row is removed right after the watermark. (The run that reads
the marker plans with Spark's predicate push-down off, in the job's own session: it would move
user filters below the watermark and drop the marker. See ``sqlengine.end_of_input``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from catalog.connectors import spec_of
from planner.logical.operators import Scan
from planner.problems import PlanningError
from sqlengine.connectors import get_connector
from sqlengine.connectors.base import SourceRequest
from sqlengine.connectors.errors import ConnectorError
from sqlengine.translate.core import Rel, SourceInfo, Translator, one_batch, unreachable
from sqlengine.translate.expressions import SparkExpressions, quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame



def translate_scan(t: Translator, node: Scan) -> Rel:
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampNTZType

    table = node.source_table
    spec = spec_of(table)
    connector = get_connector(table.connector)
    base_names = tuple(c.name for c in table.columns if c.kind != "computed")
    request = SourceRequest(table=table, columns=base_names, streaming=t.streaming, job_dir=t.job_dir, filters=node.filters)
    try:
        result = connector.source(t.spark, request)
    except ConnectorError as err:  # shown at the table's name in the statement
        raise PlanningError(str(err), node.origin) from None
    df = result.df
    t.side_queries.extend(result.side_queries)

    # computed columns, in the table's column order
    exprs = SparkExpressions({f.name: f for f in node.fields}, t.time_zone)
    computed = dict(node.computed)
    cols = [F.expr(exprs.sql(computed[f.name])).alias(f.name) if f.name in computed else F.col(quote(f.name)) for f in node.fields]
    # an upsert source's rows carry their kind (upsert or delete) to the ChangelogNormalize above
    kind = result.kind_column
    if kind is not None:
        cols.append(F.col(quote(kind)))
    if computed or df.columns != [*node.field_names(), *([kind] if kind else [])]:
        df = df.select(*cols)

    info = SourceInfo(
        table.name,
        result.bounded,
        tuple(result.metric_names),
        batches=one_batch if spec is not None and spec.one_batch(table) else result.batches,
        poll_seconds=result.poll_seconds,
        split_bytes=result.split_bytes,
    )
    if t.streaming and node.watermark_field is not None:
        if node.watermark_delay_ms is None:
            raise unreachable(node, "a watermark that is not a constant delay")
        wm = node.watermark_field
        # Spark keeps watermarks only on TIMESTAMP (its local-time-zone type); the session runs
        # in UTC, so a Flink TIMESTAMP (no zone) becomes the same instant; outputs cast it back
        if isinstance(df.schema[wm].dataType, TimestampNTZType):
            df = df.withColumn(wm, F.col(quote(wm)).cast("timestamp"))
        flag = None
        if result.bounded and t.end_markers:
            df, flag = _with_marker(t, df, wm, info)
        df = df.withWatermark(wm, f"{node.watermark_delay_ms} milliseconds")
        if flag is not None:
            df = df.filter(~F.col(flag)).drop(flag)
    t.sources.append(info)
    return Rel(df, tuple(node.field_names()), kind=kind)


def _with_marker(t: Translator, df: DataFrame, wm: str, info: SourceInfo) -> tuple[DataFrame, str]:
    """``df`` with the end-of-input marker source unioned in, and the flag column telling it apart."""
    from pyspark.sql import functions as F

    flag = t.fresh("eos")
    marker_dir = t.job_dir / "eos" / f"source{t.next_scan_id()}"
    marker_dir.mkdir(parents=True, exist_ok=True)
    # one file per batch: the marker may sit behind empty files, to come with the input's last batch
    marker = (
        t.spark.readStream.schema(f"{quote(wm)} TIMESTAMP, {quote(flag)} BOOLEAN")
        .option("maxFilesPerTrigger", 1)
        .json(str(marker_dir))
    )
    filler = [F.col(quote(wm)) if c == wm else F.lit(None).cast(df.schema[c].dataType).alias(c) for c in df.columns]
    marker = marker.select(*filler, F.col(quote(flag)))
    info.marker_dir, info.time_column, info.marker_column = marker_dir, wm, flag
    return df.withColumn(flag, F.lit(False)).unionByName(marker), flag
