"""The kafka and upsert-kafka connectors, with Flink's option names.

kafka: records of one or more topics (or a topic pattern) as an append-only source, unbounded
unless 'scan.bounded.mode' says where to stop; an append-only sink (at least once: Spark's Kafka
sink has no transactions). upsert-kafka: a compacted topic read as a changelog on the table's
primary key (the message key; a null value deletes the key) and an upsert sink (updates are
records of the key, deletes tombstones), the sink Flink uses for updating queries.

Values and keys are encoded by a format ('format' or 'value.format', 'key.format'); each format's
own options are written with its prefix ('value.json.ignore-parse-errors' or, with 'format',
'json.ignore-parse-errors'). Any 'properties.*' is handed to the Kafka client.
"""

from __future__ import annotations

from catalog.connectors.base import CONNECTOR, ConnectorSpec
from catalog.model import TableDef
from catalog.option_types import OptionProblem, OptionSpec, opt

# formats a Kafka key or value can have (avro needs Spark's avro package: see docs/connectors.md)
KAFKA_FORMATS = ("json", "csv", "raw", "avro")
STARTUP_MODES = ("earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets")
BOUNDED_MODES = ("unbounded", "latest-offset", "group-offsets", "timestamp", "specific-offsets")
# Flink's Kafka metadata keys: (type, writable)
METADATA = {
    "topic": ("STRING", True),
    "partition": ("INT", True),
    "headers": ("MAP<STRING, BYTES>", True),
    "offset": ("BIGINT", False),
    "timestamp": ("TIMESTAMP_LTZ(3)", False),
    "timestamp-type": ("STRING", False),
    "leader-epoch": ("INT", False),
}

_COMMON = (
    CONNECTOR,
    opt("properties.bootstrap.servers", "string", None, "The brokers, 'host:port,...'.", required=True),
    opt("properties.*", "string", None, "Any Kafka client setting (consumer and producer), e.g. "
        "'properties.security.protocol'; secrets (sasl.jaas.config) are masked."),
    opt("key.fields-prefix", "string", None, "A prefix of the key fields' column names, taken off "
        "in the key's encoding."),
    opt("value.fields-include", "enum", "ALL", "Whether the value holds every physical column or "
        "all but the key fields.", choices=("ALL", "EXCEPT_KEY")),
    opt("sink.parallelism", "int", None, "Spark writes with the query's partitions.", ignored=True),
)

# where a read ends (both connectors; upsert-kafka since Flink's FLINK-31740)
_BOUNDED = (
    opt("scan.bounded.mode", "enum", "unbounded", "Where the source ends (a bounded read).",
        choices=BOUNDED_MODES),
    opt("scan.bounded.timestamp-millis", "long", None, "End before the first record at or "
        "after this time (mode 'timestamp')."),
    opt("scan.bounded.specific-offsets", "string", None, "End offsets per partition "
        "(mode 'specific-offsets')."),
    opt("scan.max-offsets-per-trigger", "long", None, "At most this many records per "
        "micro-batch, over all partitions (Spark's maxOffsetsPerTrigger).", flink_name=False),
)


class _KafkaRead(ConnectorSpec):
    """How far a read of either Kafka connector goes (their 'scan.bounded.*' options are one)."""

    def bounded(self, table: TableDef) -> bool:
        return self.values(table).raw("scan.bounded.mode") not in (None, "unbounded")

    def one_batch(self, table: TableDef) -> bool:
        # Spark's Kafka source under availableNow reads up to the offsets of the job's start at once
        return self.bounded(table) and "scan.max-offsets-per-trigger" not in table.options


class Kafka(_KafkaRead):
    name = "kafka"
    options = (
        *_COMMON,
        opt("topic", "string", None, "The topic, or topics separated by ';'."),
        opt("topic-pattern", "string", None, "A regular expression of topic names to read."),
        opt("format", "enum", None, "The format of keys and values (or set 'value.format').",
            choices=KAFKA_FORMATS),
        opt("value.format", "enum", None, "The format of the value.", choices=KAFKA_FORMATS),
        opt("key.format", "enum", None, "The format of the key (with 'key.fields').", choices=KAFKA_FORMATS),
        opt("key.fields", "string", None, "The columns in the message key, separated by ';'."),
        opt("scan.startup.mode", "enum", "group-offsets", "Where a new job starts reading; a "
            "resumed job continues from its checkpoint.", choices=STARTUP_MODES),
        opt("scan.startup.timestamp-millis", "long", None, "Start at the first record at or after "
            "this time (mode 'timestamp')."),
        opt("scan.startup.specific-offsets", "string", None,
            "'partition:0,offset:42;partition:1,offset:300' (mode 'specific-offsets')."),
        *_BOUNDED,
        opt("scan.topic-partition-discovery.interval", "duration", None,
            "Spark discovers new partitions at every micro-batch.", ignored=True),
        opt("scan.parallelism", "int", None, "Spark reads one task per partition.", ignored=True),
        opt("sink.partitioner", "enum", "default", "Which partition a record goes to: by key "
            "(default), or the client's choice.", choices=("default", "fixed", "round-robin")),
        opt("sink.delivery-guarantee", "enum", "at-least-once", "Spark's Kafka sink delivers at "
            "least once; 'exactly-once' needs Kafka transactions, which it does not have.",
            choices=("at-least-once", "none", "exactly-once")),
        opt("sink.transactional-id-prefix", "string", None, "Only for 'exactly-once'.", ignored=True),
        opt("errors.mode", "enum", "fail", "What a malformed record does: fail the job, skip it "
            "(counted), or null-fields: its fields that do not convert read as NULL (counted), "
            "what Flink's 'ignore-parse-errors' does.", choices=("fail", "skip", "null-fields"), flink_name=False),
    )
    source = True
    sink = True
    description = "Kafka topics (json, csv, raw): an append-only source and an at-least-once sink."
    formats = KAFKA_FORMATS
    prefixed_formats = True

    def problems(self, table: TableDef, fmt: str | None) -> list[OptionProblem]:
        opts = table.options
        out = _format_problems(table)
        topics = [k for k in ("topic", "topic-pattern") if k in opts]
        if len(topics) != 1:
            out.append(OptionProblem("topic", f"Table `{table.name}` needs exactly one of 'topic' "
                                     "and 'topic-pattern'."))
        if "key.fields" in opts and "key.format" not in opts:
            out.append(OptionProblem("key.format", "'key.fields' needs a 'key.format'."))
        if "key.format" in opts and "key.fields" not in opts:
            out.append(OptionProblem("key.fields", "'key.format' needs 'key.fields': the columns "
                                     "of the key."))
        out += _mode_problems(opts, "scan.startup")
        out += _mode_problems(opts, "scan.bounded")
        limit = self.values(table).integer("scan.max-offsets-per-trigger")
        if limit is not None and limit < 1:
            out.append(OptionProblem("scan.max-offsets-per-trigger",
                                     "'scan.max-offsets-per-trigger' must be at least 1."))
        if opts.get("sink.delivery-guarantee") == "exactly-once":
            out.append(OptionProblem(
                "sink.delivery-guarantee",
                "Spark's Kafka sink has no transactions: it delivers at least once. Use "
                "'upsert-kafka' with a primary key for an idempotent result, or the filesystem "
                "sink for exactly-once.", "at-least-once"))
        return out


class UpsertKafka(_KafkaRead):
    name = "upsert-kafka"
    options = (
        *_COMMON,
        opt("topic", "string", None, "The topic.", required=True),
        *_BOUNDED,
        opt("key.format", "enum", None, "The format of the key (the primary key's columns).",
            required=True, choices=KAFKA_FORMATS),
        opt("value.format", "enum", None, "The format of the value.", required=True, choices=KAFKA_FORMATS),
        opt("sink.buffer-flush.max-rows", "int", None, "Spark's producer batches by itself.", ignored=True),
        opt("sink.buffer-flush.interval", "duration", None, "Spark's producer batches by itself.", ignored=True),
        opt("errors.mode", "enum", "fail", "What a malformed record does: fail the job, skip it "
            "(counted), or null-fields: its fields that do not convert read as NULL (counted), "
            "what Flink's 'ignore-parse-errors' does.", choices=("fail", "skip", "null-fields"), flink_name=False),
    )
    source = True
    sink = True
    description = ("A compacted Kafka topic as a changelog on the primary key: upserts and "
                   "tombstones; the sink for updating queries.")
    formats = KAFKA_FORMATS
    prefixed_formats = True
    accepts_updates = True
    upsert_source = True

    def problems(self, table: TableDef, fmt: str | None) -> list[OptionProblem]:
        out = _format_problems(table)
        if not table.primary_key:
            out.append(OptionProblem("connector", f"Table `{table.name}`: 'upsert-kafka' needs a "
                                     "PRIMARY KEY (the message key)."))
        if ";" in table.options.get("topic", ""):
            out.append(OptionProblem("topic", "'upsert-kafka' reads and writes one topic."))
        return out


def key_fields(table: TableDef) -> tuple[str, ...]:
    """The columns in the message key: the primary key (upsert-kafka) or 'key.fields'."""
    if table.connector == "upsert-kafka":
        return table.primary_key
    raw = table.options.get("key.fields", "")
    return tuple(f.strip() for f in raw.split(";") if f.strip())


def value_fields(table: TableDef) -> tuple[str, ...]:
    """The physical columns in the message value ('value.fields-include')."""
    physical = tuple(c.name for c in table.columns if c.kind == "physical")
    if table.options.get("value.fields-include", "ALL") == "EXCEPT_KEY":
        keys = set(key_fields(table))
        return tuple(c for c in physical if c not in keys)
    return physical


def parse_offsets(text: str) -> dict[int, int]:
    """'partition:0,offset:42;partition:1,offset:300' -> {0: 42, 1: 300}; ValueError if malformed."""
    out: dict[int, int] = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        fields = dict(kv.split(":", 1) for kv in part.split(",") if ":" in kv)
        if set(fields) != {"partition", "offset"}:
            raise ValueError(f"'{part}' is not 'partition:N,offset:M'")
        out[int(fields["partition"].strip())] = int(fields["offset"].strip())
    return out


def _mode_problems(opts: dict[str, str], prefix: str) -> list[OptionProblem]:
    mode = opts.get(f"{prefix}.mode")
    out: list[OptionProblem] = []
    if mode == "timestamp" and f"{prefix}.timestamp-millis" not in opts:
        out.append(OptionProblem(f"{prefix}.timestamp-millis",
                                 f"'{prefix}.mode' = 'timestamp' needs '{prefix}.timestamp-millis'."))
    if mode == "specific-offsets":
        key = f"{prefix}.specific-offsets"
        if key not in opts:
            out.append(OptionProblem(key, f"'{prefix}.mode' = 'specific-offsets' needs '{key}'."))
        else:
            try:
                parse_offsets(opts[key])
            except ValueError as err:
                out.append(OptionProblem(key, f"Option '{key}': {err}."))
    if mode == "group-offsets" and "properties.group.id" not in opts:
        out.append(OptionProblem("properties.group.id",
                                 f"'{prefix}.mode' = 'group-offsets' needs 'properties.group.id'."))
    return out


def _format_problems(table: TableDef) -> list[OptionProblem]:
    """Value and key formats: one way of naming the value's, and each format option's prefix
    naming the format in use."""
    opts = table.options
    out: list[OptionProblem] = []
    value_fmt = opts.get("value.format") or opts.get("format")
    if "format" in opts and "value.format" in opts:
        out.append(OptionProblem("format", "Set 'format' or 'value.format', not both."))
    elif value_fmt is None:
        out.append(OptionProblem("value.format", f"Table `{table.name}` needs the option 'format' "
                                 "(or 'value.format')."))
    if value_fmt == "raw" and len(value_fields(table)) != 1:
        out.append(OptionProblem("value.format", "The 'raw' format holds one column; the value has "
                                 f"{len(value_fields(table))}."))
    if opts.get("key.format") == "raw" and len(key_fields(table)) != 1:
        out.append(OptionProblem("key.format", "The 'raw' key format holds one column."))
    for key in opts:
        side, _, rest = key.partition(".")
        if side in ("key", "value") and rest.split(".")[0] in KAFKA_FORMATS:
            used = opts.get(f"{side}.format") or (opts.get("format") if side == "value" else None)
            if rest.split(".")[0] != used:
                out.append(OptionProblem(key, f"Option '{key}' is for {side} format "
                                         f"'{rest.split('.')[0]}', but the {side} format is '{used}'."))
    for col in table.columns:
        if col.kind != "metadata":
            continue
        mkey = col.metadata_key or col.name
        if mkey not in METADATA:
            known = ", ".join(f"'{k}'" for k in METADATA)
            out.append(OptionProblem("connector", f"Metadata column `{col.name}` reads '{mkey}', "
                                     f"which the {table.connector} connector does not offer ({known})."))
    missing = [k for k in key_fields(table) if k not in table.column_names]
    if missing:
        out.append(OptionProblem("key.fields", f"Key field `{missing[0]}` is not a column of "
                                 f"`{table.name}`."))
    return out


def prefixed(options: tuple[OptionSpec, ...], side: str) -> tuple[OptionSpec, ...]:
    """A format's options as a key or value format's ('json.x' -> 'value.json.x')."""
    return tuple(OptionSpec(f"{side}.{o.key}", o.type, o.default, o.required, o.description,
                            o.choices, o.flink_name, o.ignored) for o in options)
