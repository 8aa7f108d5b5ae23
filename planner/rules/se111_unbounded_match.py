"""SE111: MATCH_RECOGNIZE without WITHIN keeps a partial match (a pattern begun and not yet
finished or failed) for as long as it may still complete: per partition, possibly forever."""

from __future__ import annotations

from collections.abc import Iterator

from planner.analysis.state import Verdict
from planner.diagnostics import Category, Severity
from planner.logical.operators import MatchRecognize
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import from_relation, keys_text


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if not isinstance(node, MatchRecognize) or node.within_ms is not None:
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        part = info.parts[0]
        rel = from_relation(ctx, node)
        source = f" over {rel.label}" if rel is not None else ""
        keys = f" per partition ({keys_text(part.key_labels or part.keys)})" if part.keys else ""
        estimate = ctx.estimate(node, 0)
        size = f" ({estimate})" if estimate else ""
        yield Finding(
            node,
            f"MATCH_RECOGNIZE{source} has no WITHIN: a partial match of PATTERN ({node.pattern}) is kept{keys} until "
            f"it completes or fails, forever if the rows that would decide it never come{size}",
            "add WITHIN INTERVAL '...' after the PATTERN: a partial match older than that is dropped as the "
            "watermark passes, and the state is bounded by the rows of that span",
            None,
        )


RULE = Rule(
    code="SE111",
    name="unbounded-match",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="MATCH_RECOGNIZE without WITHIN keeps partial matches forever",
    check=check,
)
