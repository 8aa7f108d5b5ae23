"""SE109: a watermark delay longer than the window or interval it closes: state is kept mostly
for the delay (and results are that late)."""

from __future__ import annotations

from collections.abc import Iterator

from planner.analysis.state import Verdict
from planner.diagnostics import Category, Severity
from planner.durations import format_duration
from planner.logical.joins import IntervalJoin, WindowJoin
from planner.logical.operators import Deduplicate, Node, TopN, WindowAggregate
from planner.logical.specs import WindowKind
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.rewrites import watermark_rewrite


def _span(node: Node) -> tuple[str, int] | None:
    """What the operator itself keeps rows for (the window size, the interval reach)."""
    window = node.window if isinstance(node, (WindowAggregate, WindowJoin, Deduplicate, TopN)) else None
    if window is not None:
        if window.kind == WindowKind.SESSION:
            return f"the session gap ({format_duration(window.gap_ms)})", window.gap_ms or 0
        return f"the window ({format_duration(window.size_ms)})", window.size_ms or 0
    if isinstance(node, IntervalJoin):
        width = node.upper_ms - node.lower_ms
        return f"the join interval ({format_duration(width)})", width
    return None


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        span = _span(node)
        info = ctx.state_of(node)
        if span is None or info is None or info.verdict != Verdict.BOUNDED:
            continue
        wm = ctx.props[node.node_id].watermark
        if not wm.present or wm.delay_ms is None:
            continue
        what, own = span
        if wm.delay_ms <= own:
            continue
        scans = [s for s in ctx.lineage.scans(node) if s.watermark_delay_ms == wm.delay_ms and s.watermark_field]
        table = scans[0].table.name if scans else (wm.sources[0] if wm.sources else "t")
        column = (scans[0].watermark_field if scans else None) or "ts"
        delay = format_duration(wm.delay_ms)
        kept = format_duration(own + wm.delay_ms)
        message = (
            f"The watermark delay of `{table}` ({delay}) is longer than {what} of this {node.kind}: its state is kept "
            f"{kept}, mostly waiting for late rows, and every result is emitted {delay} late"
        )
        hint = "a delay is the lateness you accept, not a buffer: set it to the lateness your sources really have"
        yield Finding(node, message, hint, watermark_rewrite(table, column, max(own, 1000)))


RULE = Rule(
    code="SE109",
    name="watermark-delay-dominates",
    severity=Severity.INFO,
    category=Category.PERFORMANCE,
    summary="Watermark delay longer than the window or interval: state kept mostly for the delay",
    check=check,
)
