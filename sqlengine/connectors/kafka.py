"""The kafka and upsert-kafka connectors on Spark's Kafka source and sink.

Source: Spark's streaming Kafka reader; keys and values decoded by their formats, metadata
columns from the record. Where a new job starts follows 'scan.startup.mode' (a resumed job goes
on from its checkpoint, as Flink's does from its state). A bounded read ('scan.bounded.mode')
runs with availableNow: it reads what is in the topic when the job starts, up to the end offsets
the mode names. The consumer group is used to look up its committed offsets only: Spark keeps
offsets in the checkpoint and commits nothing to Kafka, and a group id given to Spark's
consumers would make two queries on one group split the partitions between them.

Sink: Spark's Kafka writer, at least once (a replayed micro-batch is written again).
upsert-kafka writes each row as a record of its key: +I and +U as the row, -D as a tombstone
(a null value), -U not at all when the changelog is an upsert on the table's key (otherwise as a
tombstone: see ``sink``), so a compacted topic ends as the table, and a replayed batch
writes the same records again: the result is idempotent.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from catalog.connectors import CONNECTORS
from catalog.connectors.kafka import key_fields, parse_offsets, value_fields
from catalog.malformed import side_errors_mode
from sqlengine.connectors.base import Connector, SinkRequest, SourceRequest, SourceResult
from sqlengine.connectors.filesystem import csv_options
from sqlengine.connectors.kafka_formats import decode, encode, side_options, uses_avro
from sqlengine.connectors.kafka_jars import ensure_avro, ensure_kafka
from sqlengine.connectors.kafka_offsets import KafkaAdmin, Offsets, offsets_json
from sqlengine.connectors.malformed import (
    CORRUPT_COLUMN,
    count_and_drop,
    count_and_keep,
    errors_mode,
    metric_name,
    one_record,
)
from sqlengine.connectors.options import TableOptions
from sqlengine.types import UnsupportedType, spark_schema, spark_type

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamWriter
    from pyspark.sql.types import StructType

    from catalog import TableDef

log = logging.getLogger("sqlengine.kafka")

KIND_COLUMN = "__sqlengine_upsert_kind"
_WHOLE = "__sqlengine_whole_record"  # null-fields: every malformed side still parsed as one record
UPSERT, DELETE = 0, 3
# client settings Spark sets itself or refuses (its consumers are its own)
_SPARK_OWNS = {
    "group.id", "auto.offset.reset", "enable.auto.commit", "key.deserializer", "value.deserializer",
    "key.serializer", "value.serializer", "interceptor.classes",
}
_TIMESTAMP_TYPES = {0: "CreateTime", 1: "LogAppendTime"}


def client_properties(table: TableDef) -> dict[str, str]:
    """The table's 'properties.*' as Kafka client settings."""
    return {k[len("properties."):]: v for k, v in table.options.items() if k.startswith("properties.")}


def _topics(opts: TableOptions) -> list[str]:
    return [t.strip() for t in (opts.string("topic") or "").split(";") if t.strip()]


class Kafka(Connector):
    name = "kafka"

    # -- source --------------------------------------------------------------------------------

    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult:
        from pyspark.sql import functions as F

        table = request.table
        opts = TableOptions(table)
        opts.validate()
        ensure_kafka(spark)
        if uses_avro(table):
            ensure_avro(spark)
        props = client_properties(table)
        reader_opts = {f"kafka.{k}": v for k, v in props.items() if k not in _SPARK_OWNS}
        reader_opts["failOnDataLoss"] = "false"  # as Flink: records deleted by retention are skipped
        pattern = opts.string("topic-pattern")
        if pattern:
            reader_opts["subscribePattern"] = pattern
        else:
            reader_opts["subscribe"] = ",".join(_topics(opts))
        upsert = self.name == "upsert-kafka"
        if upsert:
            reader_opts["startingOffsets"] = "earliest"  # the whole changelog, as Flink reads it
        else:
            reader_opts.update(self._starting(spark, opts, props))
        end = self._ending(spark, opts, props)
        # where a new job starts and ends, for whoever wonders why a read was empty
        log.info("%s: start %s, end %s", table.name, {k: v for k, v in reader_opts.items() if k.startswith("starting")}, end)
        if request.streaming and opts.has("scan.max-offsets-per-trigger"):
            # a bounded read (availableNow) keeps the limit too: its input comes in several batches
            reader_opts["maxOffsetsPerTrigger"] = str(opts.int("scan.max-offsets-per-trigger"))
        if any(c.kind == "metadata" and (c.metadata_key or c.name) == "headers" for c in table.columns):
            reader_opts["includeHeaders"] = "true"
        reader = spark.readStream if request.streaming else spark.read
        raw = reader.format("kafka").options(**reader_opts).load()
        if end is not None:
            raw = raw.where(_before(end))
        mode = errors_mode(opts)
        df, counted = self._decode(raw, table, opts, mode)
        metrics: tuple[str, ...] = ()
        if counted:
            name = metric_name(table.name)
            if mode == "null-fields":
                df = count_and_keep(df, name, F.col(_WHOLE)).drop(_WHOLE)
            else:
                df = count_and_drop(df, name)
            metrics = (name,)
        if upsert:
            df = df.select(F.when(F.col("__value_null"), F.lit(DELETE)).otherwise(F.lit(UPSERT)).alias(KIND_COLUMN),
                           *[F.col(f"`{c}`") for c in df.columns if c not in ("__value_null",)])
        spec = CONNECTORS[self.name]
        return SourceResult(df=df, bounded=spec.bounded(table), metric_names=metrics,
                            kind_column=KIND_COLUMN if upsert else None)

    def _decode(self, raw: DataFrame, table: TableDef, opts: TableOptions, mode: str) -> tuple[DataFrame, bool]:
        """The table's physical and metadata columns from the records, and whether they hold the
        malformed record's text (CORRUPT_COLUMN: a side's mode is not 'fail'; with the table's
        ``mode`` 'null-fields', _WHOLE too: every malformed side still parsed as one record). Each
        side parses in its own mode, as Flink's key and value formats each read their own
        'ignore-parse-errors'."""
        from pyspark.sql import functions as F

        physical = {c.name: c for c in table.columns if c.kind == "physical"}
        keys, values = key_fields(table), value_fields(table)
        prefix = opts.string("key.fields-prefix") or ""
        columns: dict[str, Column] = {}
        bad: list[Column] = []
        whole: list[Column] = []  # per side: parsed as one record, malformed or not (null-fields)
        for side, names, raw_col in (("key", keys, F.col("key")), ("value", values, F.col("value"))):
            fmt = opts.string(f"{side}.format") or (opts.string("format") if side == "value" else None)
            if not names or fmt is None:
                continue
            schema = _declared(table, names, _unprefixed(names, prefix) if side == "key" else list(names), opts)
            side_mode, side_opts = side_errors_mode(table.options, side), side_options(table, side, fmt)
            parsed = decode(raw_col, fmt, schema, side_opts, side_mode)
            struct_name = f"__{side}"
            columns[struct_name] = parsed
            for n, f in zip(names, schema.fields, strict=True):
                columns.setdefault(n, F.col(f"{struct_name}.`{f.name}`"))
            if side_mode != "fail" and fmt != "raw":
                record = F.col(f"{struct_name}.`{CORRUPT_COLUMN}`")
                bad.append(record)
                csv = csv_options(side_opts) if fmt == "csv" else {}
                kept = one_record(record, fmt, len(schema.fields), csv) if side_mode == "null-fields" else F.lit(False)
                whole.append(record.isNull() | kept)
        out = raw.select(*raw.columns, *[c.alias(n) for n, c in columns.items() if n.startswith("__")])
        selected = [columns[n].alias(n) if n in columns else F.lit(None).cast(spark_type(physical[n].type or "STRING")).alias(n)
                    for n in physical]
        selected += [self._metadata(table, c.name, c.metadata_key or c.name, c.type, opts)
                     for c in table.columns if c.kind == "metadata"]
        if self.name == "upsert-kafka":
            selected.append(F.col("value").isNull().alias("__value_null"))
        if bad:
            selected.append(F.coalesce(*bad).alias(CORRUPT_COLUMN))
            if mode == "null-fields":
                whole_record = whole[0]
                for w in whole[1:]:
                    whole_record = whole_record & w
                selected.append(whole_record.alias(_WHOLE))
        return out.select(*selected), bool(bad)

    @staticmethod
    def _metadata(table: TableDef, name: str, key: str, type_: str | None, opts: TableOptions) -> Column:
        from pyspark.sql import functions as F

        if key == "timestamp-type":
            value = F.coalesce(*[F.when(F.col("timestampType") == code, F.lit(text)) for code, text in _TIMESTAMP_TYPES.items()],
                               F.lit("NoTimestampType"))
        elif key == "headers":
            value = F.map_from_entries(F.col("headers"))
        elif key in ("topic", "partition", "offset", "timestamp"):
            value = F.col(key)
        else:
            raise opts.error(f"metadata column `{name}` reads '{key}', which Spark's Kafka source does not offer.")
        return (value.cast(spark_type(type_)) if type_ else value).alias(name)

    def _starting(self, spark: SparkSession, opts: TableOptions, props: dict[str, str]) -> dict[str, str]:
        mode = opts.string("scan.startup.mode") or "group-offsets"
        if mode == "earliest-offset":
            return {"startingOffsets": "earliest"}
        if mode == "latest-offset":
            return {"startingOffsets": "latest"}
        if mode == "timestamp":
            return {"startingTimestamp": str(opts.int("scan.startup.timestamp-millis")),
                    # a partition with no record at or after the time starts at its end, as in Flink
                    "startingOffsetsByTimestampStrategy": "latest"}
        admin = KafkaAdmin(spark, {k: v for k, v in props.items() if k != "group.id"})
        try:
            parts = admin.partitions(admin.topics(_topics(opts), opts.string("topic-pattern")))
            if mode == "specific-offsets":
                given = parse_offsets(opts.string("scan.startup.specific-offsets") or "")
                # a partition not named starts at its earliest offset (Flink's default reset)
                return {"startingOffsets": offsets_json({p: given.get(p[1], -2) for p in parts})}
            committed = admin.committed(props.get("group.id", ""))
        finally:
            admin.close()
        reset = props.get("auto.offset.reset", "none").lower()
        missing = [p for p in parts if p not in committed]
        if missing and reset not in ("earliest", "latest"):
            raise opts.error(
                f"the consumer group '{props.get('group.id')}' has no committed offset for "
                f"{missing[0][0]}-{missing[0][1]}; set 'properties.auto.offset.reset' to 'earliest' "
                "or 'latest', or choose another 'scan.startup.mode'.", "scan.startup.mode")
        fallback = -2 if reset == "earliest" else -1
        return {"startingOffsets": offsets_json({p: committed.get(p, fallback) for p in parts})}

    def _ending(self, spark: SparkSession, opts: TableOptions, props: dict[str, str]) -> Offsets | None:
        """End offsets (exclusive) of a bounded read, when the mode names them; None: to the end
        of what is there when the job starts (availableNow), or unbounded."""
        mode = opts.string("scan.bounded.mode") or "unbounded"
        if mode in ("unbounded", "latest-offset"):
            return None
        admin = KafkaAdmin(spark, {k: v for k, v in props.items() if k != "group.id"})
        try:
            parts = admin.partitions(admin.topics(_topics(opts), opts.string("topic-pattern")))
            if mode == "timestamp":
                return admin.at_time(parts, opts.int("scan.bounded.timestamp-millis") or 0)
            if mode == "specific-offsets":
                given = parse_offsets(opts.string("scan.bounded.specific-offsets") or "")
                return {p: given.get(p[1], 0) for p in parts}  # a partition not named: nothing
            committed = admin.committed(props.get("group.id", ""))
            return {p: committed.get(p, 0) for p in parts}
        finally:
            admin.close()

    # -- sink ----------------------------------------------------------------------------------

    def sink(self, df: DataFrame, request: SinkRequest) -> DataStreamWriter | None:
        from pyspark.sql import functions as F

        table = request.table
        opts = TableOptions(table)
        opts.validate()
        ensure_kafka(df.sparkSession)
        if uses_avro(table):
            ensure_avro(df.sparkSession)
        topics = _topics(opts)
        metadata = {c.metadata_key or c.name: c.name for c in table.columns if c.kind == "metadata" and not c.virtual}
        if len(topics) != 1 and "topic" not in metadata:
            raise opts.error("a sink writes one 'topic' (or the rows' `topic` metadata column).", "topic")
        if opts.string("sink.partitioner") == "fixed":
            raise opts.error("'fixed' (one partition per writer task) has no Spark counterpart; use "
                             "'default' (by key) or 'round-robin'.", "sink.partitioner")
        if "timestamp" in metadata:
            raise opts.error(f"Spark's Kafka sink cannot set a record's timestamp; declare `{metadata['timestamp']}` "
                             "METADATA FROM 'timestamp' VIRTUAL to write without it.")
        rows = df
        kind = F.col(f"`{request.kind_column}`") if request.kind_column else None
        # upsert-kafka only (kafka takes appended rows). An upsert changelog on the table's key
        # follows each -U with the +U of the same key: the -U is not written, as in Flink. A
        # retracting one (a Top-N whose rows trade places, keyed otherwise) may take a row back
        # for good with -U: it is written as a tombstone, and a +U of the same key after it
        # writes the row again.
        same_key = bool(request.upsert_key) and set(request.upsert_key) == set(table.primary_key)
        if kind is not None and same_key:
            rows = rows.where(kind != 1)
        keys, values = key_fields(table), value_fields(table)
        prefix = opts.string("key.fields-prefix") or ""
        out: list[Column] = []
        key_fmt = opts.string("key.format")
        if keys and key_fmt:
            names = _unprefixed(keys, prefix)
            out.append(encode([F.col(f"`{k}`") for k in keys], names, key_fmt, side_options(table, "key", key_fmt),
                              _declared(table, keys, names, opts)).alias("key"))
        value_fmt = opts.string("value.format") or opts.string("format") or ""
        value = encode([F.col(f"`{v}`") for v in values], list(values), value_fmt, side_options(table, "value", value_fmt),
                       _declared(table, values, list(values), opts))
        if kind is not None:
            value = F.when(kind.isin(1, 3), F.lit(None).cast("binary")).otherwise(value)
        out.append(value.alias("value"))
        if "topic" in metadata:
            out.append(F.col(f"`{metadata['topic']}`").alias("topic"))
        if "partition" in metadata:
            out.append(F.col(f"`{metadata['partition']}`").alias("partition"))
        if "headers" in metadata:
            out.append(F.map_entries(F.col(f"`{metadata['headers']}`")).alias("headers"))
        rows = rows.select(*out)
        props = {f"kafka.{k}": v for k, v in client_properties(table).items() if k not in _SPARK_OWNS}
        if opts.string("sink.partitioner") == "round-robin":
            props["kafka.partitioner.class"] = "org.apache.kafka.clients.producer.RoundRobinPartitioner"
        if len(topics) == 1:
            props["topic"] = topics[0]
        if request.streaming:
            mode = "update" if request.output_mode == "update" else "append"
            return rows.writeStream.format("kafka").options(**props).outputMode(mode)
        rows.write.format("kafka").options(**props).save()
        return None


class UpsertKafka(Kafka):
    name = "upsert-kafka"


def _before(end: Offsets) -> Column:
    """Records before the end offset of their partition."""
    from pyspark.sql import functions as F

    cond = F.lit(False)
    for (topic, partition), offset in end.items():
        cond = cond | ((F.col("topic") == topic) & (F.col("partition") == partition) & (F.col("offset") < offset))
    return cond


def _declared(table: TableDef, columns: list[str] | tuple[str, ...], names: list[str], opts: TableOptions) -> StructType:
    """The declared types of a key's or value's columns, named as they are written."""
    from pyspark.sql.types import StructField, StructType

    physical = {c.name: c for c in table.columns if c.kind == "physical"}
    try:
        schema = spark_schema([physical[n] for n in columns])
    except UnsupportedType as err:
        raise opts.error(str(err)) from None
    return StructType([StructField(n, f.dataType, f.nullable) for n, f in zip(names, schema.fields, strict=True)])


def _unprefixed(keys: list[str] | tuple[str, ...], prefix: str) -> list[str]:
    """The key columns as the key's encoding names them ('key.fields-prefix' taken off)."""
    return [k[len(prefix):] if prefix and k.startswith(prefix) else k for k in keys]
