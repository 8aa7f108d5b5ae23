"""The print connector: each row as Flink prints it, ``+I[1, foo]``, to standard output (or
error), prefixed by 'print-identifier> ' when set.

An insert-only input prints +I. An upsert input (output mode 'update') arrives per micro-batch
as the new rows of the keys that changed; we print +I the first time this sink sees a key and +U
after that. What we cannot show: -U (the old row; Spark does not hand it to a sink) and -D
(Spark's update mode never deletes). Keys seen are remembered in the driver only, so after a
restart a key's first row prints +I again, and a micro-batch replayed after a failure prints
again (foreachBatch is at-least-once).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from planner.logical.changelog import RowKind
from sqlengine.connectors.base import Connector, SinkRequest, SourceRequest, SourceResult
from sqlengine.connectors.flink_format import format_row
from sqlengine.connectors.options import TableOptions

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamWriter
    from pyspark.sql.types import StructType


class RowPrinter:
    """The foreachBatch function: collects each (small) micro-batch and prints it in order."""

    def __init__(self, identifier: str | None, stderr: bool, upsert_key: tuple[str, ...] | None):
        self.prefix = f"{identifier}> " if identifier else ""
        self.stderr = stderr
        self.upsert_key = upsert_key  # None: insert-only input
        self.seen: set[tuple[Any, ...]] = set()
        self._lock = threading.Lock()

    def lines(self, rows: Iterable[Row], schema: StructType) -> list[str]:
        out: list[str] = []
        positions = [schema.fieldNames().index(k) for k in self.upsert_key or ()]
        for row in rows:
            kind = RowKind.INSERT
            if self.upsert_key is not None:
                key = tuple(row[i] for i in positions) if positions else tuple(row)
                kind = RowKind.UPDATE_AFTER if key in self.seen else RowKind.INSERT
                self.seen.add(key)
            out.append(self.prefix + format_row(row, schema, kind))
        return out

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        rows = batch.collect()
        with self._lock:
            text = self.lines(rows, batch.schema)
            stream = sys.stderr if self.stderr else sys.stdout  # looked up now: it may be patched
            for line in text:
                print(line, file=stream)
            stream.flush()


class Print(Connector):
    name = "print"

    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult:
        raise TableOptions(request.table).error("the print connector cannot be read from.")

    def sink(self, df: DataFrame, request: SinkRequest) -> DataStreamWriter | None:
        opts = TableOptions(request.table)
        opts.validate()
        updating = request.output_mode == "update"
        missing = [k for k in request.upsert_key if k not in df.columns]
        if missing:
            raise opts.error(f"the upsert key column {', '.join(missing)} is not in the result.")
        printer = RowPrinter(
            opts.string("print-identifier"),
            opts.bool("standard-error"),
            tuple(request.upsert_key) if updating else None,
        )
        if request.streaming:
            return df.writeStream.foreachBatch(printer).outputMode(request.output_mode)
        printer(df, 0)
        return None
