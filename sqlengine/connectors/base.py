"""The contract between translation and connectors.

A connector turns a catalog table into a DataFrame of its *physical* columns (plus the metadata
columns it offers) and writes a DataFrame into a table. Computed columns, watermarks and
everything relational are applied by ``sqlengine.translate`` on top of what a source returns.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from catalog import TableDef
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.readwriter import DataStreamWriter
    from sqlglot import exp

    from sqlengine.connectors.malformed import DeadLetterQuery


@dataclass(frozen=True)
class SourceRequest:
    table: TableDef
    # physical and metadata column names the query needs (a source may return more)
    columns: tuple[str, ...]
    # True: a streaming DataFrame (readStream); False: batch (execution.runtime-mode = batch)
    streaming: bool
    # a directory private to this job (dead letters default there, connector scratch files)
    job_dir: Location
    # conjuncts of the query's filter right on this table (sqlglot expressions over its columns):
    # a source may use them to produce fewer rows, as Flink's SupportsFilterPushDown; the filter
    # still runs on what the source returns
    filters: tuple[exp.Expr, ...] = ()


@dataclass
class SourceResult:
    df: DataFrame
    # bounded: the input ends by itself. The job runs such a source with Trigger.AvailableNow, which
    # is what makes it stop once the input is consumed: a bounded source must put all of its data
    # in what is available when the query starts
    bounded: bool
    # names of observed metrics (DataFrame.observe) this source adds, e.g. malformed-record
    # counts; they appear in StreamingQueryProgress.observedMetrics under these names
    metric_names: tuple[str, ...] = ()
    # extra streaming queries the source needs running beside the job (e.g. a dead-letter
    # writer); each is a function(spark, checkpoint_root) -> StreamingQuery
    side_queries: tuple[DeadLetterQuery, ...] = field(default=())
    # how often an unbounded source looks for new input (Flink's source.monitor-interval), in
    # seconds; None: it has input whenever a batch asks (a generator)
    poll_seconds: float | None = None
    # an upsert source (ConnectorSpec.upsert_source): the first column holds each row's kind, 0
    # for an upsert of its key (the row's values) and 3 for a delete (a Kafka tombstone: only the
    # key columns are set); the planner's ChangelogNormalize turns these into a changelog
    kind_column: str | None = None
    # a bounded source read in several micro-batches: how many its input there now takes, asked
    # when the job starts (None from it: it cannot tell); not set: one, or it cannot tell
    batches: Callable[[], int | None] | None = None
    # a bounded read Spark may cut at any byte (uncompressed text files): how many bytes it holds
    # there now, asked when the job starts to size its splits (sqlengine.scan_splits); not set, or
    # None from it: Spark's own split size
    split_bytes: Callable[[], int | None] | None = None


@dataclass(frozen=True)
class SinkRequest:
    table: TableDef
    streaming: bool
    # "append" (insert-only input) or "update" (upsert input with key ``upsert_key``)
    output_mode: str
    upsert_key: tuple[str, ...]
    job_dir: Location
    # INSERT OVERWRITE (batch mode only): replace the table's data, or the partitions written
    overwrite: bool = False
    # a changelog (output mode "append"): each row's kind (0 +I, 1 -U, 2 +U, 3 -D) in this column,
    # the first of the DataFrame; a sink that takes updates applies it, others never see one
    kind_column: str | None = None


class Connector(ABC):
    name: ClassVar[str]

    @abstractmethod
    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult: ...

    def sink(self, df: DataFrame, request: SinkRequest) -> DataStreamWriter | None:
        """A configured writer (streaming), or None after writing ``df`` (batch)."""
        raise NotImplementedError(f"the {self.name} connector cannot be written to")
