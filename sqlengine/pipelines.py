"""How a planned statement's DataFrame becomes a job's pipeline: written to its sink table
through the sink's connector, or collected into the result table the shell shows; a batch
pipeline runs once, inside the job's thread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlglot import exp

from catalog import TableDef
from catalog.connectors import spec_of
from planner.logical import typing as T
from planner.logical.fields import Field
from planner.logical.operators import Node, Sink
from planner.problems import PlanningError
from sqlengine.jobs import Pipeline, Start, Trigger
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.streaming.query import StreamingQuery

    from sqlengine.results import ResultTable
    from sqlengine.translate import Translated


def sink_pipeline(plan: Sink, translated: Translated, name: str, streaming: bool, job_dir: Location) -> Pipeline:
    from pyspark.sql import functions as F

    from sqlengine.connectors import get_connector
    from sqlengine.connectors.base import SinkRequest
    from sqlengine.types import spark_type

    table: TableDef = plan.table
    df = translated.df
    persisted = [(c.name, spark_type(c.type or "STRING")) for c in table.columns if c.is_persisted]
    connector = get_connector(table.connector)
    spec = spec_of(table)
    # a changelog's kind column goes to a sink that takes updates; to one that only appends
    # (the checker let only +I rows through), the rows go without it
    kind = translated.kind_column if spec is None or spec.accepts_updates else None
    # the select is left out when it would change nothing (each costs Spark an analysis of the
    # whole plan); a watermark mark on a column is taken off, not written into the files
    fields = df.schema.fields
    wanted = ([(kind, fields[0].dataType)] if kind else []) + persisted
    if [(f.name, f.dataType) for f in fields] != wanted or any(f.metadata for f in fields):
        df = df.select(*([F.col(f"`{kind}`")] if kind else []), *[F.col(f"`{n}`").cast(t).alias(n) for n, t in persisted])
    if streaming:
        df = time_as_text(df, table, plan)
    request = SinkRequest(
        table=table,
        streaming=streaming,
        output_mode=translated.output_mode,
        upsert_key=translated.upsert_key,
        job_dir=job_dir,
        overwrite=plan.overwrite,
        kind_column=kind,
    )

    def start(trigger: Trigger, ck: Location) -> StreamingQuery | None:
        writer = connector.sink(df, request)
        if writer is None:  # batch: written already
            return None
        return trigger.apply(writer.option("checkpointLocation", str(ck)).queryName(name)).start()

    return Pipeline(name, translated, once(start) if not streaming else start)


# formats that write a TIME as its text ('13:45:30'), as Flink's do; the connectors that print
_TEXT_FORMATS = frozenset({"json", "csv", "raw", "debezium-json", "canal-json", "maxwell-json", "ogg-json"})
_TEXT_CONNECTORS = frozenset({"print", "blackhole"})


def time_as_text(df: DataFrame, table: TableDef, plan: Sink) -> DataFrame:
    """Spark's stream writer refuses a TIME column (UNSUPPORTED_TIME_TYPE) that its batch writer
    takes. A sink that writes text gets the TIME's text, which is what it would write; a binary
    format (Parquet, Avro, ORC) has no such way, and the job is refused before it starts."""
    times = [f.name for f in df.schema.fields if f.dataType.typeName() == "time"]
    if not times:
        return df
    formats = {v.lower() for k, v in table.options.items() if k in ("format", "value.format", "key.format")}
    if table.connector not in _TEXT_CONNECTORS and not formats <= _TEXT_FORMATS:
        written = ", ".join(sorted(formats)) or table.connector
        raise PlanningError(
            f"a streaming job cannot write the TIME column `{times[0]}` of {table.name} ({written}) on Spark: its stream "
            "writer takes no TIME; write it to a JSON or CSV table, or CAST it to STRING",
            plan.origin,
        )
    return cast_columns(df, dict.fromkeys(times, "string"))


def cast_columns(df: DataFrame, types: dict[str, Any]) -> DataFrame:
    """``df`` with the columns named in ``types`` cast to their type there, the others as they are."""
    from pyspark.sql import functions as F

    return df.select(*[F.col(f"`{c}`").cast(types[c]).alias(c) if c in types else F.col(f"`{c}`") for c in df.columns])


def result_pipeline(translated: Translated, result: ResultTable, name: str, streaming: bool, plan: Node, zone: str) -> Pipeline:
    from sqlengine.spark_connect import ResultBatches, is_connect

    df = typed_like(translated.df, plan.fields, translated.kind_column, zone)
    remote = ResultBatches(lambda n, rows: result.apply(n, [tuple(r) for r in rows])) if is_connect(df.sparkSession) else None
    # Spark's stream writer refuses a TIME column (UNSUPPORTED_TIME_TYPE) that a batch takes:
    # TIME crosses the writer as its text and is read back in each micro-batch
    times = {f.name: f.dataType for f in df.schema.fields if f.dataType.typeName() == "time"} if streaming and remote is None else {}
    if times:
        df = cast_columns(df, dict.fromkeys(times, "string"))

    def collect(batch_df: DataFrame, batch_id: int) -> None:
        if times:
            batch_df = cast_columns(batch_df, times)
        result.apply(batch_id, [tuple(r) for r in batch_df.collect()])

    def start(trigger: Trigger, ck: Location) -> StreamingQuery | None:
        if not streaming:
            result.apply(0, [tuple(r) for r in df.collect()])
            return None
        if remote is not None:  # Spark Connect: the client reads the rows (sqlengine.spark_connect)
            query = trigger.apply(remote.start(df, translated.output_mode, ck).option("checkpointLocation", str(ck)).queryName(name)).start()
            remote.query = query
            return query
        writer = df.writeStream.outputMode(translated.output_mode).foreachBatch(collect)
        return trigger.apply(writer.option("checkpointLocation", str(ck)).queryName(name)).start()

    return Pipeline(name, translated, once(start) if not streaming else start, drain=remote.drain if remote else None)


def typed_like(df: DataFrame, fields: tuple[Field, ...], kind: str | None = None, zone: str | None = None) -> DataFrame:
    """Result columns in the types the query declares (a rowtime computed as Spark's TIMESTAMP
    goes back to Flink's TIMESTAMP, a wall-clock value with no zone); a changelog's kind column
    stays first. ``zone``: rows read by the shell show a TIMESTAMP_LTZ as its wall time in the
    session's zone, as Flink's SQL client prints it (whatever the zone of the Python process)."""
    from pyspark.sql import functions as F

    from sqlengine.types import UnsupportedType, spark_type

    cols = [F.col(f"`{kind}`")] if kind else []
    for f, c in zip(fields, df.columns[1:] if kind else df.columns, strict=True):
        if zone is not None and T.is_type(f.type, exp.DType.TIMESTAMPLTZ):
            cols.append(F.from_utc_timestamp(F.col(f"`{c}`"), zone).cast("timestamp_ntz").alias(c))
            continue
        try:
            target = spark_type(f.type)
        except UnsupportedType:  # a type Spark has no counterpart of: as Spark computed it
            cols.append(F.col(f"`{c}`"))
            continue
        # the same type up to the nullability of its elements stays (Spark casts no nullable
        # map value or array element to a non-nullable one, and nothing is gained)
        same = df.schema[c].dataType.simpleString() == target.simpleString()
        cols.append(F.col(f"`{c}`") if same else F.col(f"`{c}`").cast(target).alias(c))
    return df.select(*cols)


def once(start: Start) -> Start:
    """A batch pipeline runs once, synchronously, inside the job's thread."""
    ran = False

    def run(trigger: Trigger, ck: Location) -> StreamingQuery | None:
        nonlocal ran
        if not ran:
            start(trigger, ck)
            ran = True
        return None

    return run
