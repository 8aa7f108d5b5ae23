"""SE302: an operator that runs as one of sqlengine's changelog operators, and why. The decision
is the planner's (``planner.analysis.physical``); this rule says it where the query is written, with what
would let Spark run the operator itself."""

from __future__ import annotations

from collections.abc import Iterator

from planner.analysis.physical import Why, user_aggregate
from planner.diagnostics import Category, Severity
from planner.logical.joins import Join
from planner.logical.operators import ChangelogNormalize, Deduplicate, Node, Sort, TopN, WindowAggregate, window_on_proctime
from planner.rules.base import Finding, Rule, RuleContext

HINTS: dict[Why, str] = {
    Why.CONSUMES_CHANGES: "window the operator below it (a window aggregation emits final rows), so that this one reads appends",
    Why.AFTER_CHANGELOG: "window the operator below it, so that the rows it reads are final",
    Why.NO_NATIVE: "rank per window (window Top-N) with ROW_NUMBER, to run on Spark's own operators",
    Why.FEEDS_STATEFUL: "window it, so that the operator above reads final rows",
    Why.RETRACTS: "window it, so that its rows are final",
    Why.FILTERED: "filter on the key only, or window it, so that no update can take a row out of the result",
    Why.KEY_NOT_KEPT: "keep the GROUP BY keys in the result: each row then replaces the row of its key",
    Why.TTL: "bound the state with event time instead (a window, an interval join, a window Top-N)",
    Why.LATE_INPUT: "make it the first stateful step, or window it",
    Why.WALL_CLOCK_SESSIONS: "Spark's own session windows run sessions on a TIMESTAMP, or in a zone without daylight saving time",
}
NORMALIZE_HINT = "read the topic with 'connector' = 'kafka' if its records are events (each one appended), not updates of a key"


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        physical = ctx.physical.get(node.node_id)
        if physical is None or not physical.changelog or physical.why is None:
            continue
        strategy = f"; it keeps {_strategy(physical.strategy.value)}" if physical.strategy is not None else ""
        hint: str | None
        if isinstance(node, ChangelogNormalize):
            why, hint = "it turns an upsert source's records into a changelog (Spark has no such operator)", NORMALIZE_HINT
        else:
            why, hint = str(physical.why), _no_native_hint(node) if physical.why == Why.NO_NATIVE else HINTS[physical.why]
        how = ("its rows go through sqlengine's Java operator (flatMapGroupsWithState)" if physical.jvm
               else "its rows go through Python (transformWithState), slower than Spark's own operators")
        yield Finding(node, f"{node.kind} runs as a changelog operator on Spark because {why}: {how}{strategy}", hint)


def _no_native_hint(node: Node) -> str | None:
    """What would let Spark run an operator it has no operator for, where something would."""
    if user_aggregate(node):
        return "aggregate with built-in functions where they can say it: Spark then aggregates natively"
    window = getattr(node, "window", None)
    if isinstance(node, (WindowAggregate, TopN, Deduplicate)) and window is not None and window_on_proctime(node, window):
        return "window on the event-time attribute (the column of WATERMARK FOR): Spark's own window operators run it"
    if isinstance(node, (TopN, Deduplicate, Sort)):
        return HINTS[Why.NO_NATIVE]
    if type(node) is Join:
        return "bound the join in time (an interval join), or make it an inner join, to run on Spark's own join"
    return None  # OVER, MATCH_RECOGNIZE, an event-time temporal join: Spark has no counterpart at all


def _strategy(name: str) -> str:
    return {
        "AppendFastStrategy": "the top rows of each partition (its input only appends)",
        "UpdateFastStrategy": "the top rows of each partition (its input's order only improves)",
        "RetractStrategy": "every row of its input (a retraction may bring any row into the top)",
    }[name]


RULE = Rule(
    code="SE302",
    name="changelog-operator",
    severity=Severity.INFO,
    category=Category.PERFORMANCE,
    summary="Runs as a changelog operator on Spark (rows go through Python)",
    check=check,
)
