"""SE102: a regular join of streams keeps every row of each unbounded side forever."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from planner.analysis.state import StoredKind, Verdict
from planner.diagnostics import Category, Severity
from planner.logical.joins import Join
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import join_sides, on_condition, side_label
from planner.rules.rewrites import interval_join_rewrite


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if type(node) is not Join:
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        sides = join_sides(ctx, node)
        on = on_condition(ctx, node)
        cond = f" {on}" if on else ""
        for i, part in enumerate(info.parts):
            if part.bounded:
                continue
            estimate = ctx.estimate(node, i)
            size = f" ({estimate})" if estimate else ""
            label = side_label(ctx, sides[part.input_index], node.inputs[part.input_index])
            other = side_label(ctx, sides[1 - part.input_index], node.inputs[1 - part.input_index])
            kept = "the current row per key" if part.stored.kind == StoredKind.UPSERT_ROWS else "every row"
            message = (
                f"Regular join{cond} keeps {kept} of {label} ({part.label}) forever, "
                f"to match rows of {other} that may still come{size}"
            )
            hint = (
                "bound the join in time: an interval join (both sides' event times within an interval) "
                "releases rows once the watermark passes the bound; or set a state TTL if old rows may stop matching"
            )
            yield Finding(node, message, hint, partial(interval_join_rewrite, ctx, node))


RULE = Rule(
    code="SE102",
    name="unbounded-regular-join",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Regular join of streams keeps every row of each side forever",
    check=check,
)
