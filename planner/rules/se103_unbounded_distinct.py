"""SE103: SELECT DISTINCT, UNION (distinct), INTERSECT, EXCEPT and COUNT(DISTINCT ...) without a
window keep every distinct value they have seen, forever."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from sqlglot import exp

from planner.analysis.state import PartRole, Verdict
from planner.diagnostics import Category, Severity
from planner.dialect import Flink
from planner.logical.operators import GroupAggregate
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import enclosing_select, from_relation, keys_text, source_rowtime
from planner.rules.rewrites import ttl_rewrite, tvf, window_rewrite


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if not isinstance(node, GroupAggregate):
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        rel = from_relation(ctx, node)
        source = f" of {rel.label}" if rel is not None else ""
        for i, part in enumerate(info.parts):
            if part.bounded:
                continue
            estimate = ctx.estimate(node, i)
            size = f" ({estimate})" if estimate else ""
            if node.set_operation and i == 0:
                columns = keys_text(part.key_labels or part.keys, "all columns")
                message = (
                    f"{node.set_operation}{source} keeps every distinct row ({columns}) of both inputs, with how often "
                    f"each input has had it, forever: a row may still come on either side{size}"
                )
                hint = (
                    f"{node.set_operation} the rows of each window (add window_start, window_end of a TUMBLE window to "
                    "both inputs' columns), or set a state TTL"
                )
                yield Finding(node, message, hint, partial(ttl_rewrite, ctx, node, what="row"))
            elif node.distinct_only and i == 0:
                columns = keys_text(part.key_labels or part.keys, "all columns")
                message = (
                    f"DISTINCT{source} keeps every distinct row ({columns}) it has emitted, forever, "
                    f"to drop later duplicates{size}"
                )
                hint = "deduplicate per window (add window_start, window_end of a TUMBLE window to the columns), or set a state TTL"
                yield Finding(node, message, hint, partial(_distinct_rewrite, ctx, node))
            elif part.role == PartRole.DISTINCT_VALUES:
                groups = ", ".join(info.parts[0].key_labels) or "the whole input"
                columns = " and of ".join(part.stored.columns)
                message = (
                    f"COUNT(DISTINCT ...){source} keeps every distinct value of {columns} seen per group "
                    f"({groups}) forever{size}"
                )
                hint = (
                    "count distinct values per window (TUMBLE over the event time): the value sets are released "
                    "with the window; an approximate count needs far less state"
                )
                interval = "INTERVAL '1' DAY" if info.parts[0].time_derived_key else "INTERVAL '1' HOUR"
                yield Finding(node, message, hint, partial(_count_distinct_rewrite, ctx, node, interval))


def _distinct_rewrite(ctx: RuleContext, node: GroupAggregate) -> str | None:
    return distinct_window_rewrite(ctx, node) or ttl_rewrite(ctx, node, what="row")


def _count_distinct_rewrite(ctx: RuleContext, node: GroupAggregate, interval: str) -> str | None:
    return window_rewrite(ctx, node, interval) or ttl_rewrite(ctx, node)


def distinct_window_rewrite(ctx: RuleContext, node: GroupAggregate) -> str | None:
    """SELECT DISTINCT a, b FROM t  ->  SELECT a, b, window_start, window_end FROM TUMBLE(t)
    GROUP BY a, b, window_start, window_end: a window aggregation, released per window."""
    select = enclosing_select(ctx, node)
    rel = from_relation(ctx, node)
    time = source_rowtime(ctx, node.input)
    if select is None or rel is None or rel.name is None or time is None or not select.args.get("distinct"):
        return None
    new = select.copy()
    new.set("distinct", None)
    new.set("from_", tvf(rel.name, time, "INTERVAL '1' HOUR", rel.qualifier if rel.qualifier != rel.name else None))
    items = [e.unalias() if isinstance(e, exp.Alias) else e for e in new.expressions]
    if any(isinstance(e, exp.Star) for e in items):
        return None
    window = [exp.column("window_start"), exp.column("window_end")]
    new.set("expressions", list(new.expressions) + [w.copy() for w in window])
    new.set("group", exp.Group(expressions=[e.copy() for e in items] + window))
    return new.sql(dialect=Flink, pretty=True)


RULE = Rule(
    code="SE103",
    name="unbounded-distinct",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="DISTINCT or COUNT(DISTINCT) without a window keeps every distinct value forever",
    check=check,
)
