"""SE301: what cannot run on Spark Structured Streaming as written, and why (decided by
``planner.spark_support``, which the translator follows)."""

from __future__ import annotations

from planner.diagnostics import Category, Severity
from planner.logical.operators import Deduplicate, GroupAggregate, Join, Node, OverAggregate, Sort, TopN, WindowAggregate
from planner.rules.base import Rule, RuleContext
from planner.spark_support import stateful_chain_problem, ttl_problem, unsupported


def _hint(node: Node, reason: str) -> str | None:
    if "user-defined function" in reason:
        return "write it with built-in functions; user functions (Python or JVM) are on the roadmap"
    if "state TTL" in reason:
        return "bound the state with event time instead (a window, an interval join, a window Top-N), or run it on Flink"
    if "DISTINCT" in reason:
        return "use COUNT, SUM or AVG (DISTINCT), or GROUP BY the value first and aggregate the groups"
    if isinstance(node, TopN):
        return "rank per window (window Top-N: PARTITION BY window_start, window_end, ...); its results are final, not retracted"
    if isinstance(node, Deduplicate):
        return "keep the first row (ORDER BY the event time ASC), or deduplicate per window"
    if isinstance(node, OverAggregate):
        return "aggregate per window (TUMBLE/HOP) instead of per row"
    if isinstance(node, Sort):
        return "sort the results where they are read (ORDER BY is for bounded results)"
    if isinstance(node, Join):
        return "bound the join in time (an interval join) so that rows become final"
    if isinstance(node, (GroupAggregate, WindowAggregate)):
        return "aggregate an insert-only input (a window aggregation below emits final rows)"
    return None


def check(ctx: RuleContext):  # type: ignore[no-untyped-def]
    for problem in unsupported(ctx.plan, ctx.props, ctx.lineage.bounded_input):
        yield problem.node, f"Cannot run on Spark Structured Streaming as written: {problem.reason}", _hint(problem.node, problem.reason), None, problem.at
    ttl = ttl_problem(ctx.state)
    if ttl is not None:
        yield ttl.node, f"Cannot run on Spark Structured Streaming as written: {ttl.reason}", _hint(ttl.node, ttl.reason), None
    chain = stateful_chain_problem(ctx.plan, ctx.props)
    if chain is not None:
        yield chain.node, f"Cannot run on Spark Structured Streaming as written: {chain.reason}", "make the updating operator the last stateful step, or window the operators below it", None


RULE = Rule(
    code="SE301",
    name="spark-unsupported",
    severity=Severity.ERROR,
    category=Category.UNSUPPORTED,
    summary="Cannot run on Spark Structured Streaming as written",
    check=check,
)
