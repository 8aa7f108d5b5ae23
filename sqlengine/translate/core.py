"""The translator: a logical plan becomes a PySpark DataFrame, node by node.

Each node becomes a ``Rel``: a DataFrame whose columns named in ``columns`` are the node's fields,
exactly as the plan names them (any name a user gives a column is fine), plus the hidden columns
the translator itself tracks by window id: Spark's window struct of a window TVF or window
operator, which window operators above group on, and the time column of a SESSION table
function. Every other column a handler needs on the way gets a fresh name (``Translator.fresh``)
that no column of the plan has, and is gone from the Rel it returns.

The translator refuses nothing on its own: what Spark cannot run is the checker's decision
(``planner.analysis.check``); a handler that meets a plan the checker let through but it cannot translate
has a bug, and says so with an internal error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from planner.analysis.check import Windows, carried_windows
from planner.analysis.physical import Physical
from planner.analysis.properties import NodeProps
from planner.logical.fields import Field
from planner.logical.operators import Node, Scan
from sqlengine.storage import Location
from sqlengine.translate.expressions import SparkExpressions, quote

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from sqlengine.connectors.malformed import DeadLetterQuery


class TranslationBug(AssertionError):
    """A plan the checker let through that a handler cannot translate: a bug in sqlengine."""


def unreachable(node: Node, what: str) -> TranslationBug:
    return TranslationBug(f"internal error: {what} ({node.kind} {node.label}); the checker should have refused it")


@dataclass(frozen=True)
class Rel:
    """A node's DataFrame: its fields as ``columns``, and the hidden columns it carries: the
    windows (window id -> column), and the row kind of rows out of a changelog operator."""

    df: DataFrame
    columns: tuple[str, ...]
    windows: Mapping[int, str] = field(default_factory=dict)  # window id -> Spark's window struct
    session_times: Mapping[int, str] = field(default_factory=dict)  # SESSION TVF id -> its time column
    kind: str | None = None  # the row kind (+I 0, -U 1, +U 2, -D 3) of a changelog's rows

    @property
    def hidden(self) -> list[str]:
        return [*self.windows.values(), *self.session_times.values(), *([self.kind] if self.kind else [])]

    def but(self, df: DataFrame, columns: tuple[str, ...] | None = None) -> Rel:
        """The same node's hidden columns over another DataFrame (and fields)."""
        return replace(self, df=df, columns=self.columns if columns is None else columns)

    def kind_column(self) -> Column:
        """Each row's kind: carried, or +I for the rows of an insert-only input."""
        from pyspark.sql import functions as F

        return F.col(quote(self.kind)) if self.kind else F.lit(0).cast("tinyint")

    def col(self, name: str) -> Column:
        from pyspark.sql import functions as F

        return F.col(quote(name))

    def visible(self) -> DataFrame:
        """Only the node's fields, in order (no select when that is what the DataFrame has: each
        costs Spark an analysis of the whole plan)."""
        if tuple(self.df.columns) == self.columns:
            return self.df
        return self.df.select(*[quote(c) for c in self.columns])


def one_batch() -> int:
    """The batches of a source whose whole input arrives in the first micro-batch
    (catalog.connectors: ConnectorSpec.one_batch)."""
    return 1


@dataclass
class SourceInfo:
    """What a job needs to know of one source it reads."""

    table: str
    bounded: bool
    metric_names: tuple[str, ...] = ()
    # the end-of-input marker of a bounded, watermarked source: where it is written, and the
    # columns of its one row (the watermarked column, and the flag that tells it from data)
    marker_dir: Location | None = None
    time_column: str | None = None
    marker_column: str | None = None
    # how many micro-batches a bounded read of the input there now takes, asked when the job
    # starts (so its end-of-input marker can come with the last: sqlengine.end_of_input); None:
    # the source cannot say, or ``None`` from it: not this time
    batches: Callable[[], int | None] | None = None
    poll_seconds: float | None = None  # ConnectorSpec.poll_seconds
    split_bytes: Callable[[], int | None] | None = None  # SourceResult.split_bytes


@dataclass
class Translator:
    spark: SparkSession
    props: dict[int, NodeProps]
    streaming: bool
    job_dir: Location
    # which handler translates a node (sqlengine.translate.dispatch.handler_for, given by whoever
    # builds the translator, so that this module never imports the handlers that import it)
    handler_for: HandlerLookup
    # bounded streaming runs end with a marker row that moves each watermark to the end of time
    end_markers: bool = True
    physical: dict[int, Physical] = field(default_factory=dict)  # which operators are changelog operators
    ttl_ms: int | None = None  # the session's state TTL
    bounded: bool = False  # every source of the job is finite (Analysis.bounded)
    time_zone: str = "UTC"  # 'table.local-time-zone' (sqlengine.translate.time_zone)
    buckets: int = 64  # how many buckets a changelog operator's keys are hashed into
    changelog_operators: int = 0  # how many this plan has (their job needs the RocksDB state store)
    processing_timers: bool = False  # an operator fires on the wall clock: batches must run without input too
    sources: list[SourceInfo] = field(default_factory=list)
    side_queries: list[DeadLetterQuery] = field(default_factory=list)
    _cache: dict[int, Rel] = field(default_factory=dict)
    _taken: set[str] = field(default_factory=set)  # lower-case names of the plan's columns, and fresh ones
    _scans: int = 0
    _windows: dict[int, Windows] = field(default_factory=dict)  # the checker's view, to assert against

    def claim_names(self, plan: Node) -> None:
        """Remember every column name of the plan, so that fresh names avoid them (Spark
        resolves names ignoring case)."""
        for node in plan.walk():
            self._taken.update(f.name.lower() for f in node.fields)
            if isinstance(node, Scan):
                self._taken.update(c.name.lower() for c in node.table.columns)

    def fresh(self, what: str) -> str:
        """A column name no column of the plan has, nor any other fresh name."""
        k = len(self._taken)
        while f"__{what}{k}" in self._taken:
            k += 1
        name = f"__{what}{k}"
        self._taken.add(name)
        return name

    def next_scan_id(self) -> int:
        self._scans += 1
        return self._scans

    def exprs(self, node: Node) -> SparkExpressions:
        """Expression translation over the fields a node's expressions refer to."""
        fields: dict[str, Field] = {}
        for child in node.inputs:
            for f in child.fields:
                fields.setdefault(f.name, f)
        return SparkExpressions(fields, self.time_zone)

    def join_exprs(self, node: Node) -> SparkExpressions:
        return SparkExpressions({f.name: f for f in node.fields}, self.time_zone)

    def ttl_timeouts(self, node: Node) -> bool:
        """Whether the JVM operator releases idle keys on Spark's processing-time timeouts (the
        planner's ``Physical.timeouts``): its job then runs batches without input (every 200 ms,
        as for processing-time timers)."""
        timeouts = self.physical[node.node_id].timeouts
        if timeouts:
            self.processing_timers = True
        return timeouts

    def translate(self, node: Node) -> Rel:
        # A subtree used twice (a view or CTE read by both sides of a join; the binder shares its
        # plan) is translated once per use in streaming mode, so that each use reads its own
        # source. One streaming source under two stateful branches of a query made Spark evict
        # one branch's windows a batch late: Nexmark q5 ended with no rows instead of the batch
        # result (test_streaming_equals_batch.py::test_a_view_read_twice_in_one_streaming_query).
        if not self.streaming and node.node_id in self._cache:
            return self._cache[node.node_id]
        handler = self.handler_for(node, self.streaming, self.physical.get(node.node_id), self.time_zone)
        if handler is None:
            raise unreachable(node, "no translation for this operator")
        rel = handler(self, node)
        expected = carried_windows(node, self._windows, self.time_zone, self.physical, streaming=self.streaming)
        if (set(rel.windows), set(rel.session_times)) != (set(expected.structs), set(expected.session_times)):
            raise unreachable(node, f"windows carried {dict(rel.windows)}/{dict(rel.session_times)}, planned {expected}")
        self._cache[node.node_id] = rel
        return rel

    def with_columns(self, rel: Rel, cols: list[Column], names: tuple[str, ...], keep_hidden: bool = True) -> Rel:
        """``rel`` projected to ``cols`` (named ``names``), its hidden columns kept."""
        from pyspark.sql import functions as F

        hidden = [F.col(quote(h)) for h in rel.hidden] if keep_hidden else []
        df = rel.df.select(*cols, *hidden)
        if keep_hidden:
            return rel.but(df, names)
        return Rel(df, names)


Handler = Callable[[Translator, Any], Rel]
HandlerLookup = Callable[[Node, bool, Physical | None, str], Handler | None]
