"""The translator: a logical plan becomes a PySpark DataFrame, node by node.

Columns are named exactly as the plan's fields. Columns whose names start with ``__`` are hidden
bookkeeping (a window's struct ``__w<id>`` that later window operators group on); projections
carry them along and outputs drop them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from planner.logical.operators import Node
from planner.properties import NodeProps
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import SparkExpressions, quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

HIDDEN = "__"


def hidden(df: DataFrame) -> list[str]:
    return [c for c in df.columns if c.startswith(HIDDEN)]


def visible(df: DataFrame) -> list[str]:
    return [c for c in df.columns if not c.startswith(HIDDEN)]


WATERMARK_KEY = "spark.watermarkDelayMs"  # the column metadata withWatermark() sets


def without_event_time(df: DataFrame, names: list[str] | tuple[str, ...] | None = None) -> DataFrame:
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


@dataclass
class SourceInfo:
    table: str
    bounded: bool
    sentinel_dir: Path | None  # where the end-of-input marker is written (bounded streaming)
    metric_names: tuple[str, ...] = ()
    time_column: str | None = None  # the watermarked column the marker carries
    # the whole input arrives in the first micro-batch (no per-batch limit): the end-of-input
    # marker can then be there from the start, and the job needs no second phase
    one_batch: bool = False
    poll_seconds: float | None = None  # SourceResult.poll_seconds


@dataclass
class Translator:
    spark: SparkSession
    props: dict[int, NodeProps]
    streaming: bool
    job_dir: Path
    functions: Callable | None = None  # catalog function lookup (user functions are refused)
    # bounded streaming runs end with a marker row that moves each watermark to the end of time
    flush_at_end: bool = True
    sources: list[SourceInfo] = field(default_factory=list)
    side_queries: list = field(default_factory=list)
    # id(Scan) -> conjuncts of the filter right above it, offered to its connector (streaming: each
    # use of a scan is translated anew, so a filter never reaches another use's source)
    pushed: dict[int, tuple] = field(default_factory=dict)
    _cache: dict[int, DataFrame] = field(default_factory=dict)
    _scan_ids: int = 0

    def exprs(self, node: Node) -> SparkExpressions:
        """Expression translation over the fields a node's expressions refer to."""
        fields = {}
        for child in node.inputs:
            for f in child.fields:
                fields.setdefault(f.name, f)
        return SparkExpressions(fields, self.functions)

    def join_exprs(self, node: Node) -> SparkExpressions:
        return SparkExpressions({f.name: f for f in node.fields}, self.functions)

    def translate(self, node: Node) -> DataFrame:
        # A subtree used twice (a view or CTE read by both sides of a join; the binder shares its
        # plan) is translated once per use in streaming mode, so that each use reads its own
        # source. One streaming source under two stateful branches of a query made Spark evict
        # one branch's windows a batch late: Nexmark q5 ended with no rows instead of the batch
        # result (test_streaming_equals_batch.py::test_a_view_read_twice_in_one_streaming_query).
        key = id(node)
        if self.streaming or key not in self._cache:
            from sqlengine.translate import dispatch

            handler = None
            if not self.streaming:
                handler = dispatch.BATCH_HANDLERS.get(type(node))
            handler = handler or dispatch.HANDLERS.get(type(node))
            if handler is None:
                raise TranslationError(f"{node.kind} cannot run on Spark yet", node.origin)
            self._cache[key] = handler(self, node)
        return self._cache[key]

    def project(self, df: DataFrame, names: list[str], keep_hidden: bool = True) -> DataFrame:
        cols = [quote(n) for n in names] + ([quote(h) for h in hidden(df)] if keep_hidden else [])
        return df.select(*cols)

    def next_scan_id(self) -> int:
        self._scan_ids += 1
        return self._scan_ids
