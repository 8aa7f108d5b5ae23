"""SE102: a regular join of streams keeps every row of each unbounded side forever."""

from __future__ import annotations

from planner.diagnostics import Category, Severity
from planner.logical.operators import Join
from planner.rules.base import Rule, RuleContext
from planner.rules.rewrites import interval_join_rewrite
from planner.state import Verdict


def check(ctx: RuleContext):  # type: ignore[no-untyped-def]
    for node in ctx.nodes():
        if type(node) is not Join:
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        for i, part in enumerate(info.parts):
            if part.bounded:
                continue
            estimate = ctx.estimate(node, i)
            size = f" ({estimate})" if estimate else ""
            tables = ", ".join(f"`{t}`" for t in part.source_tables) or "the input"
            message = f"Regular join keeps every row of {tables} ({part.label}) forever{size}"
            hint = (
                "bound the join in time: an interval join (both sides' time attributes within an interval) "
                "releases rows once the watermark passes the bound"
            )
            yield node, message, hint, interval_join_rewrite(ctx, node)


RULE = Rule(
    code="SE102",
    name="unbounded-regular-join",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Regular join of streams keeps every row of each side forever",
    check=check,
)
