"""Sources: a connector's DataFrame, then computed columns, then the watermark.

A bounded source in a streaming job gets an end-of-input marker: a second, private file source
whose one row carries a timestamp at the end of time. It is unioned in before the watermark, so
that once the real input is consumed the watermark jumps past every open window and bound and
Spark emits everything still held, as Flink does when a bounded source ends; the marker row is
removed right after the watermark. (The job layer turns off Spark's predicate push-down for these
runs, which would otherwise move user filters below the watermark and drop the marker.)
"""

from __future__ import annotations

from pyspark.sql import functions as F

from planner.logical.operators import Scan
from planner.problems import PlanningError
from sqlengine.connectors import get_connector
from sqlengine.connectors.base import SourceRequest
from sqlengine.connectors.errors import ConnectorError
from sqlengine.translate.core import SourceInfo, Translator
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import SparkExpressions, quote

EOS_COLUMN = "__eos"
EOS_TIME = "9999-12-31T23:59:59.000Z"


def eos_record(time_column: str) -> dict:
    """The marker row the job layer writes when a bounded run's input is exhausted."""
    return {time_column: EOS_TIME, EOS_COLUMN: True}


def translate_scan(t: Translator, node: Scan):  # type: ignore[no-untyped-def]
    table = node.table
    connector = get_connector(table.connector)
    base_names = tuple(c.name for c in table.columns if c.kind != "computed")
    options_table = table.with_options(node.options) if node.hints else table
    request = SourceRequest(
        table=options_table, columns=base_names, streaming=t.streaming, job_dir=t.job_dir,
        filters=t.pushed.pop(id(node), ()),  # once: another use of the scan may have no filter
    )
    try:
        result = connector.source(t.spark, request)
    except ConnectorError as err:  # shown at the table's name in the statement
        raise PlanningError(str(err), node.origin) from None
    df = result.df
    t.side_queries.extend(result.side_queries)

    # computed columns, in the table's column order
    exprs = SparkExpressions({f.name: f for f in node.fields}, t.functions)
    computed = dict(node.computed)
    cols = []
    for f in node.fields:
        if f.name in computed:
            cols.append(F.expr(exprs.sql(computed[f.name])).alias(f.name))
        else:
            cols.append(F.col(quote(f.name)))
    if computed or df.columns != [f.name for f in node.fields]:
        df = df.select(*cols)

    scan_id = t.next_scan_id()
    sentinel_dir = None
    if t.streaming and node.watermark_field is not None:
        if node.watermark_delay_ms is None:
            raise TranslationError(
                "Only watermarks of the form `ts - INTERVAL ...` (or `ts`) run on Spark",
                node.origin,
                "write the watermark as WATERMARK FOR ts AS ts - INTERVAL '5' SECOND",
            )
        wm = node.watermark_field
        # Spark keeps watermarks only on TIMESTAMP (its local-time-zone type); the session runs
        # in UTC, so a Flink TIMESTAMP (no zone) becomes the same instant; outputs cast it back
        from pyspark.sql.types import TimestampNTZType

        if isinstance(df.schema[wm].dataType, TimestampNTZType):
            df = df.withColumn(wm, F.col(quote(wm)).cast("timestamp"))
        if result.bounded and t.flush_at_end:
            sentinel_dir = t.job_dir / "eos" / f"source{scan_id}"
            sentinel_dir.mkdir(parents=True, exist_ok=True)
            marker = t.spark.readStream.schema(f"{quote(wm)} TIMESTAMP, {EOS_COLUMN} BOOLEAN").json(str(sentinel_dir))
            filler = [
                F.col(quote(wm)) if c == wm else F.lit(None).cast(df.schema[c].dataType).alias(c)
                for c in df.columns
            ]
            marker = marker.select(*filler, F.col(EOS_COLUMN))
            df = df.withColumn(EOS_COLUMN, F.lit(False)).unionByName(marker)
        df = df.withWatermark(wm, f"{node.watermark_delay_ms} milliseconds")
        if sentinel_dir is not None:
            df = df.filter(~F.col(EOS_COLUMN)).drop(EOS_COLUMN)
    t.sources.append(
        SourceInfo(
            table.name, result.bounded, sentinel_dir, tuple(result.metric_names), node.watermark_field,
            _one_batch(options_table), result.poll_seconds,
        )
    )
    return df


def _one_batch(table) -> bool:  # type: ignore[no-untyped-def]
    """Whether a bounded source delivers all of its input in the first micro-batch: generators
    put every row there, a file source reads every file unless a per-trigger limit is set."""
    connector = (table.connector or "").lower()
    if connector in ("datagen", "nexmark"):
        return True
    if connector == "filesystem":
        return "source.max-files-per-trigger" not in table.options
    return False
