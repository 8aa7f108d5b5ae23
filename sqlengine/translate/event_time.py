"""Spark's event-time mark on columns (the metadata ``withWatermark`` sets), taken off where
Flink's operators treat a rowtime as a plain value."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from sqlengine.translate.expressions import quote

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

WATERMARK_KEY = "spark.watermarkDelayMs"  # the column metadata withWatermark() sets


def without_event_time(df: DataFrame, names: Iterable[str] | None = None) -> DataFrame:
    """``df`` with the watermark mark taken off the columns ``names`` (all by default).

    Spark treats a watermarked column among the keys of an aggregation or dropDuplicates as an
    event-time key: it drops input rows at or behind the watermark and evicts their keys. Flink's
    group aggregation, SELECT DISTINCT and deduplication keep every row (a bounded run ends in the
    batch result); so their keys are plain columns here."""
    from pyspark.sql import functions as F

    wanted = set(df.columns if names is None else names)
    cols = []
    changed = False
    for f in df.schema.fields:
        if f.name in wanted and WATERMARK_KEY in f.metadata:
            meta = {k: v for k, v in f.metadata.items() if k != WATERMARK_KEY}
            cols.append(F.col(quote(f.name)).alias(f.name, metadata=meta))
            changed = True
        else:
            cols.append(F.col(quote(f.name)))
    return df.select(*cols) if changed else df


def with_column(df: DataFrame, name: str, col: Column) -> DataFrame:
    """``df.withColumn(name, col)`` that keeps the new column's metadata (the event-time and
    time-window marks): Spark Connect's withColumn gives it none, an alias in a select keeps it
    there as in classic Spark."""
    from pyspark.sql import functions as F

    if name in df.columns:
        return df.select(*[col.alias(name) if c == name else F.col(quote(c)) for c in df.columns])
    return df.select(*[F.col(quote(c)) for c in df.columns], col.alias(name))


def watermarked(df: DataFrame) -> list[Column]:
    """A column that carries Spark's watermark mark, for an event-time changelog operator's
    payload (Spark's event-time timers need one in its input)."""
    from pyspark.sql import functions as F

    return [F.col(quote(f.name)) for f in df.schema.fields if WATERMARK_KEY in f.metadata][:1]
