"""SE108: a state TTL bounds state by forgetting it, and forgetting changes results. Say what
changes for the operator it applies to."""

from __future__ import annotations

from collections.abc import Iterator

from planner.diagnostics import Category, Severity
from planner.durations import format_duration
from planner.logical.joins import Join, TemporalJoin
from planner.logical.operators import Deduplicate, GroupAggregate, Node, OverAggregate, TopN
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import join_sides, keys_text, side_label

SETTING = "table.exec.state.ttl"


def _origin(node: Node, side: int, ttl: int) -> str:
    return "a STATE_TTL hint" if node.state_ttl_hint(side) == ttl else f"SET '{SETTING}'"


def _effect(ctx: RuleContext, node: Node, keys: str, ttl: str) -> str | None:
    if isinstance(node, GroupAggregate) and node.distinct_only:
        return f"a row ({keys}) not seen for {ttl} is forgotten, so when it comes again it is emitted again (a duplicate)"
    if isinstance(node, GroupAggregate):
        return (
            f"a group ({keys}) without rows for {ttl} is forgotten: its next row starts a new aggregate from nothing "
            "(a count restarts at 1, a sum at that row) and overwrites the old result"
        )
    if isinstance(node, Deduplicate) and node.keep_last:
        return f"a key ({keys}) without rows for {ttl} is forgotten: its next row is emitted as a new row instead of replacing the last one"
    if isinstance(node, Deduplicate):
        return f"a key ({keys}) not seen for {ttl} is forgotten, so its next row is emitted again (a duplicate)"
    if isinstance(node, TopN):
        return f"a partition ({keys}) without rows for {ttl} is forgotten: its next rows are ranked without the earlier ones"
    if isinstance(node, OverAggregate):
        return f"a partition ({keys}) without rows for {ttl} is forgotten: its aggregates restart from its next row"
    return None


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        info = ctx.state_of(node)
        if info is None:
            continue
        ttl_parts = [(p, p.release.after_ms) for p in info.parts if p.by_ttl and p.release.after_ms]
        if not ttl_parts:
            continue
        if type(node) is Join:
            sides = join_sides(ctx, node)
            for part, ttl_ms in ttl_parts:
                side = part.input_index
                ttl = format_duration(ttl_ms)
                label = side_label(ctx, sides[side], node.inputs[side])
                other = side_label(ctx, sides[1 - side], node.inputs[1 - side])
                message = (
                    f"State TTL of {ttl} ({_origin(node, side, ttl_ms)}) changes the join's results: rows of "
                    f"{label} are forgotten {ttl} after they were stored, so a row of {other} that arrives later no longer "
                    f"matches them{' (and an outer join emits it unmatched, with NULLs)' if node.join_kind.value != 'INNER' else ''}"
                )
                hint = "if matching rows always arrive within a bounded time of each other, an interval join says so exactly and keeps the result correct"
                yield Finding(node, message, hint, None)
            continue
        if isinstance(node, TemporalJoin):
            left_rel, right_rel = join_sides(ctx, node)
            for part, ttl_ms in ttl_parts:
                ttl = format_duration(ttl_ms)
                versioned = side_label(ctx, right_rel, node.right)
                probe = side_label(ctx, left_rel, node.left)
                keys = keys_text(part.key_labels or part.keys)
                message = (
                    f"State TTL of {ttl} (SET '{SETTING}') changes the temporal join's results: a key ({keys}) without "
                    f"rows on either side for {ttl} is forgotten with its latest version of {versioned}, so a later row "
                    f"of {probe} for it finds no version "
                    f"({'it is emitted with NULLs' if node.join_kind.value == 'LEFT' else 'it is dropped'})"
                )
                hint = (
                    "keep the TTL only if keys idle that long no longer matter; if the versioned table's keys are a "
                    "fixed set, declare its size ('stats.distinct.<column>') instead and keep every key"
                )
                yield Finding(node, message, hint, None)
            continue
        if isinstance(node, Join):
            continue
        part, ttl_ms = ttl_parts[0]
        ttl = format_duration(ttl_ms)
        keys = keys_text(part.key_labels or part.keys)
        effect = _effect(ctx, node, keys, ttl)
        if effect is None:
            continue
        message = f"State TTL of {ttl} ({_origin(node, 0, ttl_ms)}) changes the results of {node.kind}: {effect}"
        hint = "keep the TTL only if keys idle that long are really finished; a window states the same bound in the query and keeps results exact"
        yield Finding(node, message, hint, None)


RULE = Rule(
    code="SE108",
    name="ttl-changes-results",
    severity=Severity.WARNING,
    category=Category.CORRECTNESS,
    summary="A state TTL bounds state by forgetting it: results change",
    check=check,
)
