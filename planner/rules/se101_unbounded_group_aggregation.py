"""SE101: a group aggregation without a window keeps one accumulator per key forever."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from planner.analysis.state import Growth, Verdict
from planner.diagnostics import Category, Severity
from planner.logical.operators import GroupAggregate
from planner.rules.base import Finding, Rewrite, Rule, RuleContext
from planner.rules.naming import from_relation, keys_text
from planner.rules.rewrites import bucket_interval, ttl_rewrite, window_rewrite


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if not isinstance(node, GroupAggregate) or node.distinct_only or node.set_operation:  # SE103's
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED or info.parts[0].bounded:
            continue
        part = info.parts[0]
        keys = keys_text(part.key_labels or part.keys)
        estimate = ctx.estimate(node, 0)
        size = f" ({estimate})" if estimate else ""
        rel = from_relation(ctx, node)
        source = f" of {rel.label}" if rel is not None else ""
        if part.growth == Growth.TIME:
            time_key = next((k for k, label in zip(part.keys, part.key_labels, strict=True) if label == part.time_derived_key), None)
            interval = bucket_interval(ctx, node, time_key)
            message = (
                f"Group aggregation{source} by a time bucket (`{part.time_derived_key}`) keeps every bucket "
                f"forever: a new key every {interval.split(' ', 2)[2].lower()}, never released{size}"
            )
            hint = "a window (TUMBLE over the event time) releases each bucket once the watermark passes its end; the results are the same"
            rewrite: Rewrite = partial(window_rewrite, ctx, node, interval)
        else:
            message = (
                f"Group aggregation{source} keeps one accumulator per key ({keys}) forever: "
                f"state grows with the number of distinct keys{size}"
            )
            hint = (
                "aggregate per window (TUMBLE/HOP over the event time) if per-window results will do, "
                "or set a state TTL if keys idle that long may be forgotten"
            )
            rewrite = partial(_keyed_rewrite, ctx, node)
        yield Finding(node, message, hint, rewrite)


def _keyed_rewrite(ctx: RuleContext, node: GroupAggregate) -> str:
    window = window_rewrite(ctx, node, "INTERVAL '1' HOUR")
    ttl = ttl_rewrite(ctx, node)
    if window is None:
        return "-- no window can replace it here: its input has no event-time attribute left\n" + ttl
    return f"{window}\n-- or keep running totals but forget idle keys:\n{ttl}"


RULE = Rule(
    code="SE101",
    name="unbounded-group-aggregation",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Group aggregation without a window keeps state per key forever",
    check=check,
)
