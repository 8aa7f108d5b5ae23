"""Helpers for connector tests: run a streaming DataFrame to its end and look at the result."""

from __future__ import annotations

import uuid
from pathlib import Path

from catalog import Column, TableDef
from sqlengine.connectors import SourceRequest, get_connector


def table(name: str, columns: list[tuple[str, str]], **options: str) -> TableDef:
    return TableDef(name, tuple(Column(n, t) for n, t in columns), options=dict(options))


def read(spark, tdef: TableDef, job_dir: Path, streaming: bool = True, filters: tuple = ()):
    request = SourceRequest(tdef, tuple(tdef.column_names), streaming, job_dir, filters)
    return get_connector(tdef.connector).source(spark, request)


def run_to_end(spark, df, checkpoint: Path, output_mode: str = "append"):
    """Run ``df`` with Trigger.AvailableNow into a memory table; (rows, finished query)."""
    name = f"t_{uuid.uuid4().hex}"
    query = (
        df.writeStream.format("memory")
        .queryName(name)
        .outputMode(output_mode)
        .trigger(availableNow=True)
        .option("checkpointLocation", str(checkpoint))
        .start()
    )
    query.awaitTermination()
    rows = spark.table(name).collect()
    spark.catalog.dropTempView(name)
    return rows, query


def observed(query, name: str, field: str = "malformed") -> int:
    """The sum of an observed metric over the query's progress reports."""
    total = 0
    for progress in query.recentProgress:
        metrics = progress.observedMetrics or {}
        if name in metrics:
            total += int(metrics[name][field])
    return total
