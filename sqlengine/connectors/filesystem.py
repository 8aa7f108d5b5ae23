"""The filesystem connector: JSON, CSV and Parquet files as a source and an append-only sink.

Source: a streaming read with the declared schema (never inferred). Without
'source.monitor-interval' it is bounded, as in Flink: it reads the files present when the query
starts (run it with Trigger.AvailableNow and it ends); with it, Spark's file source keeps picking
up new files. Sink: Spark's file sink, exactly-once through its ``_spark_metadata`` commit log.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

from catalog.connectors import CONNECTORS
from sqlengine import storage
from sqlengine.connectors.base import Connector, SinkRequest, SourceRequest, SourceResult
from sqlengine.connectors.malformed import (
    CORRUPT_COLUMN,
    DeadLetterQuery,
    bad_records,
    count_and_drop,
    count_and_keep,
    errors_mode,
    metric_name,
    one_record,
)
from sqlengine.connectors.options import TableOptions
from sqlengine.types import UnsupportedType, spark_schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, DataFrameReader, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamReader, DataStreamWriter

    from catalog import TableDef

log = logging.getLogger(__name__)

# Flink's filesystem metadata keys -> Spark's hidden _metadata fields
METADATA = {
    "file.path": "file_path",
    "file.name": "file_name",
    "file.size": "file_size",
    "file.modification-time": "file_modification_time",
}
_TIMESTAMP_PATTERNS = {  # 'json.timestamp-format.standard' -> (TIMESTAMP, TIMESTAMP_LTZ) patterns
    "SQL": ("yyyy-MM-dd HH:mm:ss[.SSSSSS]", "yyyy-MM-dd HH:mm:ss[.SSSSSS]XXX"),
    "ISO-8601": ("yyyy-MM-dd'T'HH:mm:ss[.SSSSSS]", "yyyy-MM-dd'T'HH:mm:ss[.SSSSSS]XXX"),
}


def _is_local(path: str) -> bool:
    scheme = urlparse(path).scheme
    return scheme in ("", "file") or len(scheme) == 1  # a Windows drive letter is no scheme


def _local(path: str) -> Path:
    return Path(urlparse(path).path if path.startswith("file:") else path)


def csv_options(opts: TableOptions) -> dict[str, str]:
    delimiter = opts.string("csv.field-delimiter") or ","
    out = {"sep": "\t" if delimiter == "\\t" else delimiter, "header": "false"}
    if opts.bool("csv.disable-quote-character"):
        out["quote"] = "\u0000"
    else:
        out["quote"] = opts.string("csv.quote-character") or '"'
    # RFC 4180 (and Flink) escape a quote by doubling it; Spark's default escape is a backslash
    out["escape"] = opts.string("csv.escape-character") or out["quote"]
    if opts.bool("csv.allow-comments"):
        out["comment"] = "#"
    if opts.has("csv.null-literal"):
        out["nullValue"] = opts.string("csv.null-literal") or ""
    return out


def write_options(opts: TableOptions) -> dict[str, str]:
    out: dict[str, str] = {}
    if opts.fmt in ("json", "csv"):
        standard = opts.string("json.timestamp-format.standard") if opts.fmt == "json" else "SQL"
        ntz, ltz = _TIMESTAMP_PATTERNS.get(standard or "SQL", _TIMESTAMP_PATTERNS["SQL"])
        out.update(timestampNTZFormat=ntz, timestampFormat=ltz)
    if opts.fmt == "csv":
        out.update(csv_options(opts))
    if opts.fmt == "parquet":
        out["compression"] = opts.string("parquet.compression") or "snappy"
    return out


@dataclass
class _Location:
    """What to load: a path (a pattern naming only its file when the table's path is a single
    file), or a directory and a file name filter where no such pattern can be written."""

    path: str
    glob_filter: str | None = None
    file: Path | None = None  # the local file the path or filter names


_GLOB = "\\{}[]*?,"  # Hadoop's pattern characters, each taken as itself after a backslash


def _escaped(text: str) -> str:
    """``text`` with Hadoop's pattern characters escaped: a pattern matching it alone."""
    return "".join(f"\\{ch}" if ch in _GLOB else ch for ch in text)


def only_file(file: Path) -> str | None:
    """A Hadoop path pattern that names ``file`` (absolute) and nothing else, or None where none
    can be written. Spark's streaming file source refuses a plain path to a file ("Option
    'basePath' must be a directory"); given the file's directory with a name filter instead, it
    lists every subdirectory too and infers partitions from them ("Conflicting directory
    structures" beside a partitioned table's directory). A path with an escaped character is a
    pattern to Spark, and Hadoop, finding no wildcard in it, looks up the one file without listing
    its directory: pattern characters are escaped, or else the name's last punctuation character
    ('events\\.json'). None for a name of letters and digits only (a letter or digit after a
    backslash is a regular-expression class to Hadoop) and for a path with a colon (Hadoop's
    pattern matching takes what comes before it for a URI scheme and fails)."""
    if ":" in str(file):
        return None
    text = _escaped(str(file))
    if text != str(file):
        return text
    name = file.name
    marks = [i for i, ch in enumerate(name) if not ch.isalnum()]
    if not marks:
        return None
    i = marks[-1]
    return f"{text[: -len(name)]}{name[:i]}\\{name[i]}{name[i + 1:]}"


# Hadoop's codecs by file suffix: such a file is read whole by one task
_COMPRESSED = frozenset({".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst", ".br", ".xz"})


def _one_file_bytes(files: list[Path]) -> int | None:
    """The bytes of the one uncompressed file a read takes, which Spark cuts into equal splits;
    None for several (Spark packs their pieces with a cost per file: equal waves are not ours to
    promise) or a compressed one."""
    if len(files) != 1 or files[0].suffix.lower() in _COMPRESSED:
        return None
    return files[0].stat().st_size


class Filesystem(Connector):
    name = "filesystem"

    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult:
        table = request.table
        opts = TableOptions(table)
        opts.validate()
        fmt, path = opts.fmt or "", opts.string("path") or ""
        physical = [c for c in table.columns if c.kind == "physical"]
        try:
            schema = spark_schema(physical)
        except UnsupportedType as err:
            raise opts.error(str(err)) from None
        mode = errors_mode(opts)
        spec = CONNECTORS["filesystem"]
        monitor = spec.poll_seconds(table)
        bounded = spec.bounded(table)
        reader_opts: dict[str, str] = {}
        if fmt == "csv":
            reader_opts.update(csv_options(opts))
        if fmt in ("json", "csv"):
            if mode == "fail":
                reader_opts["mode"] = "FAILFAST"
            else:
                from pyspark.sql.types import StringType, StructField

                schema = schema.add(StructField(CORRUPT_COLUMN, StringType()))
                reader_opts.update(mode="PERMISSIVE", columnNameOfCorruptRecord=CORRUPT_COLUMN)
        elif mode != "fail":  # parquet: a corrupt file is skipped whole; there is nothing to count
            if mode == "dead-letter":
                raise opts.error(
                    "Parquet has no raw records to dead-letter; use 'skip' or 'fail'.",
                    "errors.mode",
                )
            reader_opts["ignoreCorruptFiles"] = "true"
        per_batch = opts.int("source.max-files-per-trigger") if opts.has("source.max-files-per-trigger") else None
        if per_batch is not None:
            reader_opts["maxFilesPerTrigger"] = str(per_batch)
        location = self._location(opts, path, must_exist=bounded)

        def read(s: SparkSession, streaming: bool = request.streaming) -> DataFrame:
            reader: DataStreamReader | DataFrameReader
            if streaming:
                reader = s.readStream.format(fmt).schema(schema).options(**reader_opts)
            else:
                reader = s.read.format(fmt).schema(schema).options(**reader_opts)
            if location.glob_filter:
                reader = reader.option("pathGlobFilter", location.glob_filter)
            return reader.load(location.path)

        df = self._with_metadata(read(spark), table, opts)
        metrics: tuple[str, ...] = ()
        side: tuple[DeadLetterQuery, ...] = ()
        if mode in ("skip", "dead-letter", "null-fields") and fmt in ("json", "csv"):
            data_columns = [c.name for c in physical]
            if mode == "dead-letter":
                named = opts.string("errors.dead-letter.path")
                target = storage.location(named) if named else request.job_dir / "dead-letter" / table.name
                if request.streaming:
                    side = (
                        DeadLetterQuery(
                            table.name, target, read, tuple(data_columns), bounded, monitor
                        ),
                    )
                else:
                    bad_records(df, data_columns).write.mode("append").json(str(target))
            name = metric_name(table.name)
            if mode == "null-fields":
                from pyspark.sql import functions as F

                csv = csv_options(opts) if fmt == "csv" else {}
                # a record holds the columns that are not partition directories
                fields = sum(1 for c in physical if c.name not in table.partitioned_by)
                df = count_and_keep(df, name, one_record(F.col(CORRUPT_COLUMN), fmt, fields, csv))
            else:
                df = count_and_drop(df, name)
            metrics = (name,)
        def listed() -> list[str] | None:
            """The files the read takes there now, as Spark's file source lists them (a batch read's
            index, with the same path filter); None when it cannot list them (the read itself
            reports why)."""
            try:
                return list(read(spark, streaming=False).inputFiles())
            except Exception:
                log.debug("listing the files of %s", table.name, exc_info=True)
                return None

        def batches() -> int | None:
            """The micro-batches of a bounded read: its files, so many a batch (None: the job then
            runs in two phases)."""
            assert per_batch is not None
            files = listed()
            return None if files is None else max(1, math.ceil(len(files) / per_batch))

        def split_bytes() -> int | None:
            """The bytes of the one text file a bounded read takes whole: the table's file, or the
            one file Spark lists in its directory."""
            if location.file is not None:
                return _one_file_bytes([location.file])
            files = listed()
            return None if files is None else _one_file_bytes([_local(unquote(f)) for f in files[:2]])

        counted = batches if bounded and request.streaming and per_batch is not None else None
        # a bounded read taken whole, of text files Spark cuts at any line: its splits are sized
        sized = bounded and per_batch is None and fmt in ("csv", "json") and _is_local(location.path)
        return SourceResult(df=df, bounded=bounded, metric_names=metrics, side_queries=side, poll_seconds=monitor,
                            batches=counted, split_bytes=split_bytes if sized else None)

    @staticmethod
    def _with_metadata(df: DataFrame, table: TableDef, opts: TableOptions) -> DataFrame:
        from pyspark.sql import functions as F

        from sqlengine.types import spark_type

        extra = []
        for col in table.columns:
            if col.kind != "metadata":
                continue
            key = col.metadata_key or col.name
            if key not in METADATA:
                known = ", ".join(f"'{k}'" for k in METADATA)
                raise opts.error(
                    f"metadata column `{col.name}` reads '{key}', which the filesystem "
                    f"connector does not offer (it offers {known})."
                )
            value = F.col(f"_metadata.{METADATA[key]}")
            if col.type:
                value = value.cast(spark_type(col.type))
            extra.append(value.alias(col.name))
        return df.select("*", *extra) if extra else df

    @staticmethod
    def _location(opts: TableOptions, path: str, must_exist: bool) -> _Location:
        """Where to load from: a single local file as a pattern naming it alone (``only_file``),
        in batch mode too (the same files either way); where no pattern can name it, its
        directory filtered to its name (Spark then infers partitions from the directories beside
        it, as it did for every file before)."""
        loc = _Location(path)
        if not _is_local(path):
            return loc
        local = _local(path)
        if must_exist and not local.exists():
            raise opts.error(f"the path '{path}' does not exist.", "path")
        if local.is_file():
            if ":" in local.name:  # Hadoop's Path takes 'a:' for a URI scheme: Spark fails at the first read
                raise opts.error(f"Spark cannot read a file whose name has a colon ('{local.name}'); rename it.", "path")
            local = local.absolute()
            pattern = only_file(local)
            if pattern is not None:
                loc.path, loc.file = pattern, local
            else:
                loc.path, loc.glob_filter, loc.file = str(local.parent), _escaped(local.name), local
        return loc

    def sink(self, df: DataFrame, request: SinkRequest) -> DataStreamWriter | None:
        table = request.table
        opts = TableOptions(table)
        opts.validate()
        # an updating result never gets here: the checker refuses it (SINK_TAKES_APPENDS)
        assert request.output_mode == "append", "the filesystem sink takes appended rows only"
        path = opts.string("path") or ""
        if _is_local(path) and _local(path).is_file():
            raise opts.error(f"the sink path '{path}' is a file; it must be a directory.", "path")
        columns = [c.name for c in table.columns if c.kind == "physical"]
        missing = [c for c in columns if c not in df.columns]
        if missing:
            raise opts.error(f"the query has no column {', '.join(f'`{c}`' for c in missing)}.")
        for part in table.partitioned_by:
            if part not in columns:
                raise opts.error(f"PARTITIONED BY `{part}` names no physical column.")
        out = df.select(*[f"`{c}`" for c in columns])
        fmt = opts.fmt or ""
        options = write_options(opts)
        if request.streaming:
            writer = out.writeStream.format(fmt).options(**options).option("path", path)
            if table.partitioned_by:
                writer = writer.partitionBy(*table.partitioned_by)
            return writer.outputMode("append")
        batch = out.write.format(fmt).options(**options).mode("overwrite" if request.overwrite else "append")
        if table.partitioned_by:
            # as Flink's batch INSERT OVERWRITE: only the partitions the query writes are replaced
            batch = batch.partitionBy(*table.partitioned_by).option("partitionOverwriteMode", "dynamic")
        batch.save(path)
        return None
