"""SE106: an OVER aggregation keeps state per partition forever (UNBOUNDED PRECEDING keeps an
accumulator per partition; a bounded frame still keeps each partition's rows and bookkeeping
until a state TTL removes it)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from planner.analysis.state import Verdict
from planner.analysis.state.text import stored_text
from planner.diagnostics import Category, Severity
from planner.logical.operators import OverAggregate
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import from_relation, keys_text, sql, written_origin
from planner.rules.rewrites import ttl_rewrite


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if not isinstance(node, OverAggregate):
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        part = info.parts[0]
        keys = keys_text(part.key_labels or part.keys)
        origin = written_origin(ctx, node)
        what = f" ({sql(origin)})" if origin is not None else ""
        rel = from_relation(ctx, node)
        source = f" of {rel.label}" if rel is not None else ""
        estimate = ctx.estimate(node, 0)
        size = f" ({estimate})" if estimate else ""
        if node.preceding is None:
            message = (
                f"OVER aggregation{source}{what} with UNBOUNDED PRECEDING keeps one accumulator per partition "
                f"for every partition ({keys}) ever seen, forever{size}"
            )
        else:
            message = (
                f"OVER aggregation{source}{what} keeps {stored_text(part, extras=False)} for every partition ({keys}) ever seen, "
                f"forever: the frame bounds the rows per partition, not the number of partitions{size}"
            )
        hint = (
            "if per-window results will do, aggregate per window (TUMBLE over the event time); otherwise set a "
            "state TTL so that partitions idle that long are forgotten (their aggregates restart)"
        )
        yield Finding(node, message, hint, partial(ttl_rewrite, ctx, node, what="partition"))


RULE = Rule(
    code="SE106",
    name="unbounded-over",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="OVER aggregation keeps state for every partition forever",
    check=check,
)
