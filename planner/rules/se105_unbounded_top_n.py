"""SE105: Top-N (ROW_NUMBER() ... <= N) without a window keeps N rows per partition, forever."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from planner.analysis.state import Verdict
from planner.diagnostics import Category, Severity
from planner.logical.fields import TimeKind
from planner.logical.operators import TopN
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import from_relation, keys_text, rowtime_column, sql, written_origin
from planner.rules.rewrites import ttl_rewrite, window_rank_rewrite


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if not isinstance(node, TopN) or node.window is not None:
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        part = info.parts[0]
        keys = keys_text(part.key_labels or part.keys)
        origin = written_origin(ctx, node)
        what = f" ({sql(origin)} <= {node.n})" if origin is not None else ""
        rel = from_relation(ctx, node)
        source = f" of {rel.label}" if rel is not None else ""
        estimate = ctx.estimate(node, 0)
        size = f" ({estimate})" if estimate else ""
        top = "the top row" if node.n == 1 else f"the top {node.n} rows"
        message = f"Top-{node.n}{source}{what} keeps {top} of every partition ({keys}) forever{size}"
        first = node.input.field(node.order[0][0]) if node.order else None
        if node.n == 1 and (first is None or first.time != TimeKind.ROWTIME):
            message += "; ordered by a non-time column, ROW_NUMBER() = 1 is a Top-1, not a deduplication"
        hint = (
            "rank per window (PARTITION BY window_start, window_end, ... over a TUMBLE window): each window's "
            "ranking is released when it closes, and results are final instead of retracted"
        )
        yield Finding(node, message, hint, partial(_rewrite, ctx, node))


def _rewrite(ctx: RuleContext, node: TopN) -> str:
    window = window_rank_rewrite(ctx, node, rowtime_column(ctx, node.input), "INTERVAL '1' HOUR")
    ttl = ttl_rewrite(ctx, node, what="partition")
    return f"{window}\n-- or keep a running ranking, forgetting idle partitions:\n{ttl}" if window else ttl


RULE = Rule(
    code="SE105",
    name="unbounded-top-n",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Top-N without a window keeps N rows per partition forever",
    check=check,
)
