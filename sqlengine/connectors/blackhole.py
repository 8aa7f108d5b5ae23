"""The blackhole connector: discards every row (Spark's ``noop`` sink), for benchmarks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlengine.connectors.base import Connector, SinkRequest, SourceRequest, SourceResult
from sqlengine.connectors.options import TableOptions

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamWriter


class Blackhole(Connector):
    name = "blackhole"

    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult:
        raise TableOptions(request.table).error("the blackhole connector cannot be read from.")

    def sink(self, df: DataFrame, request: SinkRequest) -> DataStreamWriter | None:
        TableOptions(request.table).validate()
        if request.streaming:
            return df.writeStream.format("noop").outputMode(request.output_mode)
        df.write.format("noop").mode("overwrite").save()
        return None
