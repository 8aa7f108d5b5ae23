"""SE302: an operator that runs as one of sqlengine's changelog operators, and why. The decision
is the planner's (``planner.analysis.physical``); this rule says it where the query is written, with what
would let Spark run the operator itself."""

from __future__ import annotations

from collections.abc import Iterator

from planner.analysis.physical import Why
from planner.diagnostics import Category, Severity
from planner.logical.operators import ChangelogNormalize
from planner.rules.base import Finding, Rule, RuleContext

HINTS: dict[Why, str] = {
    Why.CONSUMES_CHANGES: "window the operator below it (a window aggregation emits final rows), so that this one reads appends",
    Why.AFTER_CHANGELOG: "window the operator below it, so that the rows it reads are final",
    Why.NO_NATIVE: "rank per window (window Top-N), or bound the join in time (an interval join), to run on Spark's own operators",
    Why.FEEDS_STATEFUL: "window it, so that the operator above reads final rows",
    Why.RETRACTS: "window it, so that its rows are final",
    Why.FILTERED: "filter on the key only, or window it, so that no update can take a row out of the result",
    Why.KEY_NOT_KEPT: "keep the GROUP BY keys in the result: each row then replaces the row of its key",
    Why.TTL: "bound the state with event time instead (a window, an interval join, a window Top-N)",
    Why.LATE_INPUT: "make it the first stateful step, or window it",
}
NORMALIZE_HINT = "read the topic with 'connector' = 'kafka' if its records are events (each one appended), not updates of a key"


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        physical = ctx.physical.get(node.node_id)
        if physical is None or not physical.changelog or physical.why is None:
            continue
        strategy = f"; it keeps {_strategy(physical.strategy.value)}" if physical.strategy is not None else ""
        if isinstance(node, ChangelogNormalize):
            why, hint = "it turns an upsert source's records into a changelog (Spark has no such operator)", NORMALIZE_HINT
        else:
            why, hint = str(physical.why), HINTS[physical.why]
        yield Finding(
            node,
            f"{node.kind} runs as a changelog operator on Spark because {why}: its rows go through Python "
            f"(transformWithState), slower than Spark's own operators{strategy}",
            hint,
        )


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
