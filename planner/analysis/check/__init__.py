"""One checker: what of a plan Spark can run, decided once, from the plan alone (no JVM).

``check_plans`` returns every ``Problem`` (a code, the operator, the exact expression where
there is one, the message from one table). Lint's SE301, EXPLAIN's advice, the shell's warning,
``engine.start`` and the translator all ask it; the translator refuses nothing on its own."""

from __future__ import annotations

from collections.abc import Sequence

from planner.analysis.check.codes import HINTS, MESSAGES, Code
from planner.analysis.check.expressions import check_expressions
from planner.analysis.check.operators import CARRIES, CHECKS, Context, Windows, carried_windows
from planner.analysis.check.problem import Problem, problem
from planner.analysis.lineage import Lineage
from planner.analysis.physical import Physical
from planner.analysis.properties import NodeProps
from planner.logical.operators import Node, Scan, WindowAggregate
from planner.logical.visit import distinct_nodes

__all__ = ["HINTS", "MESSAGES", "Code", "Problem", "Windows", "carried_windows", "check_plans", "problem"]


def check_plans(
    plans: Sequence[Node],
    props: dict[int, NodeProps],
    physical: dict[int, Physical],
    lineage: Lineage,
    *,
    streaming: bool,
    time_zone: str = "UTC",
) -> tuple[Problem, ...]:
    """Everything in ``plans`` Spark cannot run, in plan order (pre-order per plan). What runs
    as a changelog operator is ``physical``'s decision (``planner.analysis.physical``); what is left here
    is what neither Spark's operators nor ours run."""
    memo: dict[int, Windows] = {}
    ctx = Context(props, lineage, streaming, lambda node: carried_windows(node, memo, time_zone, physical, streaming=streaming), physical, time_zone)
    out: list[Problem] = []
    for plan in plans:
        if ctx.windows(plan).session_times:  # a SESSION TVF's rows reach the result
            out.append(problem(Code.SESSION_TVF_USE, plan))
    for node in distinct_nodes(plans):
        out += _session_tvf_use(node, ctx)
        check = CHECKS.get(type(node))
        found = check(node, ctx) if check is not None else []
        if not found and streaming and node.stateful and not ctx.changelog(node):
            below = ctx.after_changelog(node)
            if below is not None:  # a native operator cannot read rows that carry their kind
                found = [problem(Code.AFTER_CHANGELOG, node, below=below.kind)]
        out += found
        out += check_expressions(node)
        if streaming and isinstance(node, Scan) and node.watermark_field is not None and node.watermark_delay_ms is None:
            out.append(problem(Code.WATERMARK_NOT_CONSTANT, node))
    return tuple(out)


def _session_tvf_use(node: Node, ctx: Context) -> list[Problem]:
    """A SESSION table function's rows may only reach the window aggregation of its window (its
    window columns exist only there): any other operator that ends what its inputs carry is
    refused."""
    if type(node) in CARRIES:
        return []
    own = node.window.id if isinstance(node, WindowAggregate) else None
    for child in node.inputs:
        if ctx.windows(child).session_times - {own}:
            return [problem(Code.SESSION_TVF_USE, node)]
    return []
