"""The print connector: each row as Flink prints it, ``+I[1, foo]``, to standard output (or
error), prefixed by 'print-identifier> ' when set.

An insert-only input prints +I. A changelog (rows of changelog operators, with their kind)
prints each row with its kind: +I, -U, +U, -D, as Flink does. An upsert input of Spark's own
aggregation (output mode 'update') arrives per micro-batch as the new rows of the keys that
changed; we print +I the first time this sink sees a key, and -U (the key's previous row) then
+U after that. Spark's update mode never deletes, so there is no -D. Rows per key are remembered
in the driver only, so after a restart a key's first row prints +I again, and a micro-batch
replayed after a failure prints again (foreachBatch is at-least-once).
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

    def __init__(self, identifier: str | None, stderr: bool, upsert_key: tuple[str, ...] | None, changelog: bool = False):
        self.prefix = f"{identifier}> " if identifier else ""
        self.stderr = stderr
        self.upsert_key = upsert_key  # None: insert-only input (or a changelog)
        self.changelog = changelog  # each row's kind is its first column
        self.seen: dict[tuple[Any, ...], Any] = {}  # upsert key -> the row printed last
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        # over Spark Connect the function is pickled to the server, where it prints (as Flink's
        # print sink prints on its task managers): a lock does not pickle
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def lines(self, rows: Iterable[Row], schema: StructType) -> list[str]:
        out: list[str] = []
        if self.changelog:
            from pyspark.sql.types import StructType as Struct

            fields = Struct(schema.fields[1:])
            for row in rows:
                out.append(self.prefix + format_row(row[1:], fields, RowKind.of_code(row[0])))
            return out
        positions = [schema.fieldNames().index(k) for k in self.upsert_key or ()]
        for row in rows:
            if self.upsert_key is None:
                out.append(self.prefix + format_row(row, schema, RowKind.INSERT))
                continue
            key = tuple(row[i] for i in positions) if positions else tuple(row)
            old = self.seen.get(key)
            if old is not None:
                out.append(self.prefix + format_row(old, schema, RowKind.UPDATE_BEFORE))
            out.append(self.prefix + format_row(row, schema, RowKind.INSERT if old is None else RowKind.UPDATE_AFTER))
            self.seen[key] = row
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
        missing = [k for k in request.upsert_key if k not in df.columns] if updating else []
        if missing:
            raise opts.error(f"the upsert key column {', '.join(missing)} is not in the result.")
        printer = RowPrinter(
            opts.string("print-identifier"),
            opts.bool("standard-error"),
            tuple(request.upsert_key) if updating else None,
            changelog=request.kind_column is not None,
        )
        if request.streaming:
            return df.writeStream.foreachBatch(printer).outputMode(request.output_mode)
        printer(df, 0)
        return None
