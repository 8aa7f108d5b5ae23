"""SE110: an event-time temporal join (``FOR SYSTEM_TIME AS OF o.rowtime``) keeps the latest
version of every key of the versioned table forever.

Flink drops the versions the watermark has passed, except each key's latest, which a later row of
the left side may still need; so the state grows with the number of distinct keys of the
versioned table, unless those keys are a known finite set or a state TTL forgets idle keys. A
versioned table without a watermark is SE107's finding (nothing is ever dropped), not this one."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from planner.analysis.state import StatePart, Verdict
from planner.diagnostics import Category, Severity
from planner.logical.joins import TemporalJoin
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import join_sides, keys_text, on_condition, side_label


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if not isinstance(node, TemporalJoin):
            continue
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED or not ctx.props[node.right.node_id].watermark.present:
            continue
        index, part = next(((i, p) for i, p in enumerate(info.parts) if p.input_index == 1), (None, None))
        if part is None or part.bounded:
            continue
        left_rel, right_rel = join_sides(ctx, node)
        versioned = side_label(ctx, right_rel, node.right)
        probe = side_label(ctx, left_rel, node.left)
        on = on_condition(ctx, node)
        cond = f" {on}" if on else ""
        keys = keys_text(part.key_labels or part.keys)
        estimate = ctx.estimate(node, index)
        size = f" ({estimate})" if estimate else ""
        message = (
            f"Temporal join{cond} keeps the latest version of every key ({keys}) of {versioned} forever: older "
            f"versions are dropped once the watermark passes them, but each key's latest stays for rows of {probe} "
            f"still to come, so the state grows with the number of distinct keys of {versioned}{size}"
        )
        hint = (
            f"if the keys of {versioned} are a fixed set (currencies, countries), declare how many with "
            "'stats.distinct.<column>' on the table: the state is then at most one version per key; otherwise set "
            "'table.exec.state.ttl': a key without rows on either side for that long is dropped, and a later row "
            "for it finds no version (an inner join drops the row, a LEFT JOIN pads it with NULLs)"
        )
        left_q = left_rel.qualifier if left_rel is not None and left_rel.qualifier else "the left side"
        yield Finding(node, message, hint, partial(_rewrite, part, left_q))


def _rewrite(part: StatePart, left_q: str) -> str:
    sources = list(dict.fromkeys(part.key_sources))
    tables = list(dict.fromkeys(t for t, _ in sources))
    if sources and len(tables) == 1 and len(sources) == len(part.keys):
        options = ", ".join(f"'stats.distinct.{col}' = '<number of keys>'" for _, col in sources)
        declare = f"ALTER TABLE `{tables[0]}` SET ({options});"
    else:
        declare = "ALTER TABLE <versioned table> SET ('stats.distinct.<key column>' = '<number of keys>');"
    return (
        "-- if the versioned table has a known, fixed set of keys, say how many (the state is then at most one version per key):\n"
        f"{declare}\n"
        f"-- or forget keys idle for a day (a later row of {left_q} for such a key finds no version: SE108):\n"
        "SET 'table.exec.state.ttl' = '1 d';\n"
        "-- (the STATE_TTL hint does not apply to temporal joins, as in Flink)"
    )


RULE = Rule(
    code="SE110",
    name="unbounded-temporal-join",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Event-time temporal join keeps the latest version of every key of the versioned table forever",
    check=check,
)
