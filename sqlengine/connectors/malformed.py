"""Malformed records in text formats: fail, skip (counted), dead-letter (counted and kept) or
null-fields (counted; Flink's 'ignore-parse-errors').

Spark parses in PERMISSIVE mode with a corrupt-record column: a record that does not parse, or
whose fields do not convert to the declared types, arrives with its raw text in that column.
``skip`` filters such rows out after counting them with ``DataFrame.observe`` (the count shows up
in ``StreamingQueryProgress.observedMetrics[<metric name>]["malformed"]``); ``dead-letter`` also
runs a side query that writes them, with their file name, as JSON lines. ``null-fields`` keeps
such a row as Spark parsed it, the fields that did not convert NULL, when the record parsed as one
(``one_record``), as Flink does. ``fail`` is FAILFAST: the query fails with Spark's
MALFORMED_RECORD_IN_PARSING error.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from catalog.malformed import MODES
from catalog.malformed import errors_mode as catalog_errors_mode
from sqlengine.connectors.options import TableOptions
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

CORRUPT_COLUMN = "__sqlengine_malformed_record"
METRIC_FIELD = "malformed"

_names_lock = threading.Lock()
_names_used: dict[str, itertools.count[int]] = {}


def errors_mode(opts: TableOptions) -> str:
    """The table's mode (catalog.malformed), refused when not one of MODES."""
    mode = catalog_errors_mode(opts.table.options)
    if mode not in MODES:
        raise opts.error(f"'{opts.table.options['errors.mode']}' is not one of {', '.join(MODES)}.", "errors.mode")
    return mode


def metric_name(table: str) -> str:
    """``<table>.malformed``; a second read of the same table in one process gets ``#2`` etc.,
    because observed metric names must be unique within a query."""
    with _names_lock:
        n = next(_names_used.setdefault(table, itertools.count(1)))
    return f"{table}.malformed" if n == 1 else f"{table}.malformed#{n}"


def count_and_drop(df: DataFrame, name: str) -> DataFrame:
    """Count malformed rows under metric ``name`` and keep only the good ones."""
    from pyspark.sql import functions as F

    bad = F.col(CORRUPT_COLUMN)
    counted = df.observe(name, F.count(bad).alias(METRIC_FIELD))
    return counted.where(bad.isNull()).drop(CORRUPT_COLUMN)


def count_and_keep(df: DataFrame, name: str, keep: Column) -> DataFrame:
    """Count malformed rows under metric ``name``; keep the good ones and those ``keep`` holds for
    (a malformed row's fields that did not convert are NULL)."""
    from pyspark.sql import functions as F

    bad = F.col(CORRUPT_COLUMN)
    counted = df.observe(name, F.count(bad).alias(METRIC_FIELD))
    return counted.where(bad.isNull() | keep).drop(CORRUPT_COLUMN)


def one_record(text: Column, fmt: str, fields: int, csv: dict[str, str]) -> Column:
    """Whether the malformed record ``text`` still parsed as one record, which Flink's
    'ignore-parse-errors' keeps with NULL for what did not convert: a JSON object; a CSV line of at
    most ``fields`` fields (read with the table's ``csv`` options; missing fields are NULL, and a
    line with more is skipped)."""
    from pyspark.sql import functions as F

    if fmt == "json":
        return F.json_object_keys(text).isNotNull()
    if fmt != "csv":
        return F.lit(False)
    probe = ", ".join(f"c{i} STRING" for i in range(fields + 1))
    options = {k: v for k, v in csv.items() if k != "header"}
    return F.from_csv(text, F.lit(probe), options)[f"c{fields}"].isNull()


def bad_records(df: DataFrame, data_columns: list[str]) -> DataFrame:
    """The malformed rows as (file, record, parsed): the raw text, its file and what parsed.

    ``parsed`` is not only informative: Spark refuses a scan of raw JSON/CSV whose only data
    column is the corrupt-record column, and this keeps the declared columns in the scan.
    """
    from pyspark.sql import functions as F

    parsed = F.to_json(F.struct(*[F.col(f"`{c}`") for c in data_columns]))
    return df.where(F.col(CORRUPT_COLUMN).isNotNull()).select(
        F.col("_metadata.file_path").alias("file"),
        F.col(CORRUPT_COLUMN).alias("record"),
        parsed.alias("parsed"),
    )


@dataclass(frozen=True)
class DeadLetterQuery:
    """A side query (see SourceResult.side_queries): writes the bad records of a streaming read."""

    table: str
    path: Location
    read: Callable[[SparkSession], DataFrame]  # the same streaming read as the main query's
    data_columns: tuple[str, ...]
    bounded: bool
    interval_seconds: float | None

    def __call__(self, spark: SparkSession, checkpoint_root: Location) -> StreamingQuery:
        writer = (
            bad_records(self.read(spark), list(self.data_columns))
            .writeStream.format("json")
            .queryName(f"{self.table} dead letters")
            .option("path", str(self.path))
            .option("checkpointLocation", str(checkpoint_root / f"dead-letter-{self.table}"))
        )
        if self.bounded:
            writer = writer.trigger(availableNow=True)
        elif self.interval_seconds:
            writer = writer.trigger(processingTime=f"{self.interval_seconds} seconds")
        return writer.start()
