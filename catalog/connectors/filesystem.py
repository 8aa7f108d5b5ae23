"""The filesystem connector: files in a directory (json, csv, parquet); bounded unless
'source.monitor-interval' is set, as in Flink; an exactly-once append sink."""

from __future__ import annotations

from catalog.connectors.base import CONNECTOR, ConnectorSpec
from catalog.model import TableDef
from catalog.option_types import OptionProblem, opt

_IGNORED = (
    "sink.rolling-policy.file-size", "sink.rolling-policy.rollover-interval",
    "sink.rolling-policy.check-interval", "sink.rolling-policy.inactivity-interval",
    "auto-compaction", "compaction.file-size", "sink.partition-commit.trigger",
    "sink.partition-commit.delay", "sink.partition-commit.watermark-time-zone",
    "sink.partition-commit.policy.kind", "sink.partition-commit.policy.class",
    "sink.partition-commit.success-file.name", "partition.time-extractor.kind",
    "partition.time-extractor.timestamp-pattern", "partition.default-name",
    "sink.parallelism", "sink.shuffle-by-partition.enable",
)


class Filesystem(ConnectorSpec):
    name = "filesystem"
    options = (
        CONNECTOR,
        opt("path", "path", required=True, desc="A file or a directory of files."),
        opt("format", "enum", required=True, desc="The file format.", choices=("json", "csv", "parquet")),
        opt("source.monitor-interval", "duration", None,
            "Unset: the source reads the files present at start and ends (bounded). Set: it keeps "
            "picking up new files (unbounded); the job's trigger interval decides how often."),
        opt("source.max-files-per-trigger", "int", None,
            "At most this many new files per micro-batch.", flink_name=False),
        opt("errors.mode", "enum", "fail",
            "What a malformed record does: fail the job, skip it (counted), dead-letter it "
            "(counted and written with its file name to 'errors.dead-letter.path'), or "
            "null-fields: its fields that do not convert read as NULL (counted; a record that "
            "does not parse as one is skipped), what Flink's 'ignore-parse-errors' does.",
            choices=("fail", "skip", "dead-letter", "null-fields"), flink_name=False),
        opt("errors.dead-letter.path", "path", None,
            "Where dead letters go (JSON lines); default: the job's directory.", flink_name=False),
        *(opt(k, "string", None, "Flink file sink tuning; Spark's file sink has no equivalent.",
              ignored=True) for k in _IGNORED),
    )
    source = True
    sink = True
    description = "Files in a directory (json, csv, parquet): bounded or monitored source, exactly-once append sink."
    formats = ("json", "csv", "parquet")

    def bounded(self, table: TableDef) -> bool:
        return "source.monitor-interval" not in table.options

    def one_batch(self, table: TableDef) -> bool:
        # Spark's file source reads every present file in the first batch unless a limit is set
        return self.bounded(table) and "source.max-files-per-trigger" not in table.options

    def poll_seconds(self, table: TableDef) -> float | None:
        return self.values(table).seconds("source.monitor-interval")

    def problems(self, table: TableDef, fmt: str | None) -> list[OptionProblem]:
        opts = table.options
        out: list[OptionProblem] = []
        if fmt == "parquet" and opts.get("errors.mode") == "dead-letter":
            out.append(OptionProblem(
                "errors.mode",
                "Parquet files have no raw records to dead-letter; use 'skip' (corrupt files "
                "are skipped) or 'fail'.", "skip"))
        if opts.get("json.fail-on-missing-field", "false").lower() == "true":
            out.append(OptionProblem(
                "json.fail-on-missing-field",
                "Only 'json.fail-on-missing-field' = 'false' is supported: missing fields read "
                "as NULL.", "false"))
        return out
