"""SE107: an operator that is released by event time (a window, an interval or temporal join, a
sort or OVER on the event time, MATCH_RECOGNIZE) whose watermark never advances, or that is
ordered by a column no watermark can pass: its state is never cleaned.

The binder already refuses window functions on columns that are not time attributes; what
reaches the plan is a watermark lost on the way (a versioned table or join input without one)
or an ORDER BY on a plain column."""

from __future__ import annotations

from collections.abc import Iterator

from planner.analysis.state import Verdict
from planner.diagnostics import Category, Severity
from planner.logical.fields import TimeKind
from planner.logical.joins import IntervalJoin, TemporalJoin
from planner.logical.operators import MatchRecognize, Node, OverAggregate, Sort, WindowAggregate
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import join_sides, side_label


def _no_watermark_tables(ctx: RuleContext, node: Node) -> list[str]:
    """Tables under ``node`` whose scans declare no watermark, or a constant one."""
    return list(dict.fromkeys(s.table.name for s in ctx.lineage.scans(node) if not s.watermark_advances))


def _tables(ctx: RuleContext, node: Node) -> str:
    """The tables without an advancing watermark, each with why, for a message."""
    constant = {s.table.name for s in ctx.lineage.scans(node) if s.watermark_field and not s.watermark_advances}
    names = [f"`{t}`" + (" (its watermark is a constant, which never advances)" if t in constant else "") for t in _no_watermark_tables(ctx, node)]
    return ", ".join(names)


def _declare(tables: list[str]) -> str:
    names = ", ".join(f"`{t}`" for t in tables) or "the source"
    return f"-- declare event time on {names}:\nALTER TABLE `{tables[0] if tables else 't'}` ADD WATERMARK FOR <ts> AS <ts> - INTERVAL '5' SECOND;"


def _order_kind(node: Node, name: str) -> TimeKind | None:
    f = node.inputs[0].field(name) if node.inputs else None
    return f.time if f is not None else None


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        info = ctx.state_of(node)
        if info is None or info.verdict != Verdict.UNBOUNDED:
            continue
        if isinstance(node, TemporalJoin) and not ctx.props[node.right.node_id].watermark.present and not info.parts[0].bounded:
            _, right = join_sides(ctx, node)
            label = side_label(ctx, right, node.right)
            missing = _no_watermark_tables(ctx, node.right)
            yield Finding(
                node,
                f"Temporal join against {label}, which has no watermark: the join emits a row only when both inputs' "
                f"watermarks pass it, so every row of the left side waits forever",
                "a versioned table needs a primary key and an event-time attribute (WATERMARK FOR ...)",
                _declare(missing),
            )
        elif isinstance(node, IntervalJoin):
            for _i, part in enumerate(info.parts):
                side = node.inputs[part.input_index]
                if part.bounded or ctx.props[side.node_id].watermark.present:
                    continue
                sides = join_sides(ctx, node)
                label = side_label(ctx, sides[part.input_index], side)
                missing = _no_watermark_tables(ctx, side)
                yield Finding(
                    node,
                    f"Interval join: {label} has no watermark, so the interval bound never passes and every row "
                    f"of the {part.label} is kept forever",
                    "both inputs of an interval join need a watermark; the join's time advances with the slower one",
                    _declare(missing),
                )
        elif isinstance(node, WindowAggregate) and not ctx.props[node.input.node_id].watermark.present and not info.parts[0].bounded:
            missing = _no_watermark_tables(ctx, node.input)
            yield Finding(
                node,
                f"Window aggregation over {_tables(ctx, node.input) or 'an input'} without an advancing watermark: "
                "no window ever closes, so every window's state is kept forever and nothing is emitted",
                "declare a watermark on every input table of the window",
                _declare(missing),
            )
        elif isinstance(node, (OverAggregate, Sort, MatchRecognize)):
            order = node.order_field if not isinstance(node, Sort) else (node.order[0][0] if node.order else None)
            if order is None or (isinstance(node, Sort) and node.limit is not None):
                continue
            kind = _order_kind(node, order)
            col = ctx.lineage.display(node.inputs[0], order)
            what = {OverAggregate: "OVER aggregation ordered by", Sort: "ORDER BY", MatchRecognize: "MATCH_RECOGNIZE ordered by"}[type(node)]
            if kind is None:
                yield Finding(
                    node,
                    f"{what} `{col}`, which is not a time attribute: no watermark passes it, so its rows are "
                    "kept forever",
                    "order by the table's event-time attribute (the column of its WATERMARK FOR clause), ascending",
                    None,
                )
            elif kind == TimeKind.ROWTIME and not ctx.props[node.inputs[0].node_id].watermark.present:
                missing = _no_watermark_tables(ctx, node.inputs[0])
                yield Finding(
                    node,
                    f"{what} `{col}` waits for a watermark that never comes (no watermark on "
                    f"{_tables(ctx, node.inputs[0]) or 'an input'}): rows are buffered forever",
                    "declare a watermark on every input table",
                    _declare(missing),
                )


RULE = Rule(
    code="SE107",
    name="no-watermark",
    severity=Severity.WARNING,
    category=Category.UNBOUNDED_STATE,
    summary="Event-time operator whose watermark never advances: state never cleaned",
    check=check,
)
