"""SE101: a group aggregation without a window keeps one accumulator per key forever."""

from __future__ import annotations

from planner.diagnostics import Category, Severity
from planner.logical.operators import GroupAggregate, Scan
from planner.rules.base import Rule, RuleContext
from planner.rules.rewrites import bucket_interval, ttl_rewrite, window_rewrite
from planner.state import Growth, Verdict


def check(ctx: RuleContext):  # type: ignore[no-untyped-def]
    for node in ctx.nodes():
        if not isinstance(node, GroupAggregate) or node.distinct_only:
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        part = info.parts[0]
        keys = ", ".join(part.key_labels or part.keys) or "the group key"
        estimate = ctx.estimate(node)
        size = f" ({estimate})" if estimate else ""
        scans = [s for s in ctx.lineage.scans(node) if isinstance(s, Scan)]
        if part.growth == Growth.TIME:
            time_key = next((k for k, label in zip(part.keys, part.key_labels) if label == part.time_derived_key), None)
            interval = bucket_interval(ctx, node, time_key)
            message = (
                f"Group aggregation by a time bucket (`{part.time_derived_key}`) keeps every bucket forever: "
                f"state grows with time{size}"
            )
            hint = "a window releases each bucket once the watermark passes its end; results are the same"
            others = [label for label in part.key_labels if label != part.time_derived_key]
            yield node, message, hint, window_rewrite(scans, interval, others)
        else:
            message = f"Group aggregation keeps one row per key ({keys}) forever: state grows with the number of distinct keys{size}"
            hint = "aggregate per window (TUMBLE/HOP over the table's time attribute), or set a state TTL if old keys may be forgotten"
            yield node, message, hint, window_rewrite(scans, "INTERVAL '1' HOUR", list(part.key_labels)) + "\n" + ttl_rewrite()


RULE = Rule(
    code="SE101",
    name="unbounded-group-aggregation",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Group aggregation without a window keeps state per key forever",
    check=check,
)
