"""Whether a streaming job over bounded input may run as one batch job instead.

A bounded streaming job whose every source delivers its whole input in the first micro-batch
sees no row late: the watermark of that batch is still the job's start. What it emits is then the
batch result (docs/semantics.md: streaming = batch), and Spark's streaming costs buy nothing: the
micro-batch's offsets and commits, state written to the store only to be evicted, and, for a plan
that waits on the watermark, a second micro-batch that exists only to move the watermark past the
last windows (q8: 2.1-2.4 s of a 16-s run). Run on Spark's batch engine instead, the job emits the
same rows, sooner.

Only where nothing but the rows could tell the two apart:

- its output is insert-only: a streaming run emits updates and retractions that a batch run
  never would (a changelog sink, or a query's result shown as its changes);
- no operator runs as a changelog operator (their state and timers are streaming's own);
  these two hold unless only a final table is seen: every sink discards its rows (blackhole),
  or a query's result is shown as its table (the result mode is not 'changelog': ``sqlengine
  run`` without ``--changelog``, the shell's table and tableau views of a job that ends). The
  batch run then computes that table once, as Flink's batch runtime mode does;
- no sink is a filesystem table: the streaming file sink commits through Spark's sink log
  (``_spark_metadata``), which readers of the directory then trust; a batch write keeps none;
- no source skips malformed records: the streaming run counts them in its progress, which a
  batch run has none of;
- the one checker (``planner.analysis.check``) finds nothing a batch run cannot do (an upsert
  source, whose changelog a batch job cannot read): the engine then runs the batch analysis
  this verdict was made with;
- no operator's result depends on when or in which order rows arrive (``arrival_ordered``):
  processing-time windows and joins (a streaming run that ends drops the windows the wall clock
  has not closed, as Flink's does); a ROW_NUMBER (deduplication, Top-N, ORDER BY ... LIMIT)
  keeps, of rows that tie on its order, the one that came first, as Flink's streaming
  operators do, which a batch run knows only of rows straight from a scan
  (``planner.analysis.arrival``: not after a join, an aggregation or a union); FIRST_VALUE,
  LISTAGG and the like take rows as they come, after Spark's shuffle, in no order a batch run
  knows. Unless every sink discards its rows.

Nor when ``sqlengine.bounded.batch`` is 'false' or a savepoint is to be restored
(``verdict_under``: the verdict ``Analysis.one_batch`` holds). The engine adds what only it knows
(``sqlengine.engine``): the job's checkpoint holds nothing to resume.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from catalog.connectors import spec_of
from catalog.malformed import skips_malformed
from planner.analysis.arrival import arrival_kept, keeps_first_arrival
from planner.logical.joins import IntervalJoin
from planner.logical.operators import (
    Calc,
    Deduplicate,
    GroupAggregate,
    MatchRecognize,
    Node,
    OverAggregate,
    Scan,
    Sink,
    Sort,
    TopN,
    WindowAggregate,
    WindowTVF,
    window_on_proctime,
)
from planner.logical.specs import AggFunc
from planner.logical.visit import distinct_nodes
from planner.switches import switch_on

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis
    from planner.analysis.check import Problem

SETTING = "sqlengine.bounded.batch"
RESULT_MODE = "sql-client.execution.result-mode"  # 'changelog': a query's result is shown as its changes
SAVEPOINT_PATH = "execution.savepoint.path"


def setting_on(settings: dict[str, str]) -> bool:
    return switch_on(settings, SETTING)


@dataclass(frozen=True)
class OneBatch:
    """The verdict: ``why_not`` is None when the job may run as one batch."""

    why_not: str | None

    @property
    def ok(self) -> bool:
        return self.why_not is None

    def __str__(self) -> str:
        return "runs as one batch job" if self.ok else f"runs as a streaming job: {self.why_not}"


def verdict_under(settings: dict[str, str], plans: Sequence[Node], analysis: Analysis, *,
                  batch_problems: Sequence[Problem] = (), changes_shown: bool = False) -> OneBatch:
    """``one_batch`` under the statement's settings; ``batch_problems``: what the checker finds
    in batch mode; ``changes_shown``: a query's result is shown change by change whatever the
    result mode (``sqlengine run --changelog``)."""
    if not setting_on(settings):
        return OneBatch(f"'{SETTING}' is 'false'")
    if settings.get(SAVEPOINT_PATH) and any(isinstance(plan, Sink) for plan in plans):  # a query restores none
        return OneBatch(f"it starts from a savepoint ('{SAVEPOINT_PATH}')")
    shown = changes_shown or settings.get(RESULT_MODE) == "changelog"
    return one_batch(plans, analysis, batch_problems=batch_problems, changes_shown=shown)


def one_batch(plans: Sequence[Node], analysis: Analysis, *, batch_problems: Sequence[Problem] = (),
              changes_shown: bool) -> OneBatch:
    """``changes_shown``: a query's result is shown change by change, not as its table."""
    if not analysis.streaming:
        return OneBatch("batch mode already")
    if not analysis.bounded:
        return OneBatch("a source is unbounded")
    if analysis.problems:
        return OneBatch("Spark cannot run it")
    if batch_problems:
        return OneBatch(f"a batch job cannot run it ({batch_problems[0].message})")
    for node in distinct_nodes(plans):
        if isinstance(node, Scan):
            table = node.source_table  # its OPTIONS hints applied
            spec = spec_of(table)
            if spec is None or not spec.one_batch(table):
                return OneBatch(f"{node.table.name} is read in several micro-batches")
            if skips_malformed(table.options):
                return OneBatch(f"{node.table.name} skips malformed records (the streaming progress counts them)")
        if isinstance(node, Sink) and (node.table.connector or "").lower() == "filesystem":
            return OneBatch(f"{node.table.name} is a filesystem sink (its files are committed through Spark's sink log)")
    # what a reader sees: nothing of a sink that discards its rows
    seen = [plan for plan in plans if not (isinstance(plan, Sink) and _discards_rows(plan))]
    nodes = distinct_nodes(seen)
    for node in nodes:
        if (why := arrival_ordered(node)) is not None:
            return OneBatch(why)
    if not changes_shown and not any(isinstance(plan, Sink) for plan in seen):
        return OneBatch(None)  # no change is seen, only a query's final table (or nothing)
    changelog = [node for node in nodes if (ph := analysis.physical.get(node.node_id)) is not None and ph.changelog]
    if changelog:
        return OneBatch(f"{changelog[0].kind} runs as a changelog operator")
    for plan in seen:
        out = plan.inputs[0] if isinstance(plan, Sink) else plan
        if not analysis.props[out.node_id].changelog.insert_only:
            return OneBatch(f"its result is updated (the changes {'a sink receives' if plan is not out else 'are shown'})")
    return OneBatch(None)


# aggregate functions whose value depends on the order of their rows (a Python one may)
ARRIVAL_ORDERED_AGGS = frozenset({AggFunc.FIRST_VALUE, AggFunc.LAST_VALUE, AggFunc.LISTAGG, AggFunc.ARRAY_AGG,
                                  AggFunc.JSON_ARRAYAGG, AggFunc.USER_DEFINED})


def arrival_ordered(node: Node) -> str | None:
    """Why ``node``'s result depends on when or in which order its rows arrive, or None."""
    if (isinstance(node, (WindowAggregate, IntervalJoin)) and node.on_proctime) or (
            isinstance(node, (TopN, Deduplicate)) and node.window is not None and window_on_proctime(node, node.window)):
        return f"{node.kind} runs on processing time (what a streaming run emits depends on when rows arrive)"
    if keeps_first_arrival(node) and not arrival_kept(node):  # its rows come through a shuffle
        what = "ORDER BY ... LIMIT" if isinstance(node, Sort) else node.kind
        return (f"{what} keeps, of rows that tie on its order, the one that arrived first, and its rows come out of "
                f"a {_source_of(node).kind} (a batch run knows their arrival order only straight from a scan)")
    if isinstance(node, (OverAggregate, MatchRecognize)):
        return f"{node.kind} takes rows of the same time in the order they arrive"
    if isinstance(node, (GroupAggregate, WindowAggregate)):
        for call in node.aggs:
            if call.func in ARRIVAL_ORDERED_AGGS:
                return f"{call.func} takes rows in the order they arrive"
    return None


def _source_of(node: Node) -> Node:
    """The operator a ranking's rows come out of, past projections and filters."""
    below = node.inputs[0]
    while isinstance(below, (Calc, WindowTVF)):
        below = below.inputs[0]
    return below


def _discards_rows(sink: Sink) -> bool:
    spec = spec_of(sink.table)
    return spec is not None and spec.discards_rows
