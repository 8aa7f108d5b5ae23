"""SE201: operators on processing time (PROCTIME()) give results that depend on when rows are
processed: a re-run, a restart or a backlog gives different results."""

from __future__ import annotations

from collections.abc import Iterator

from planner.diagnostics import Category, Severity
from planner.logical.fields import TimeKind
from planner.logical.joins import IntervalJoin, LookupJoin
from planner.logical.operators import Deduplicate, MatchRecognize, Node, OverAggregate, TopN, WindowAggregate, window_on_proctime
from planner.rules.base import Finding, Rule, RuleContext
from planner.rules.naming import join_sides, side_label


def _kind(node: Node, name: str | None) -> TimeKind | None:
    if name is None or not node.inputs:
        return None
    f = node.inputs[0].field(name)
    return f.time if f is not None else None


def _proctime_window(node: Node) -> bool:
    window = getattr(node, "window", None)
    return window is not None and window_on_proctime(node, window)


HINT = "use the event time (a column with WATERMARK FOR) so that results depend only on the data"


def check(ctx: RuleContext) -> Iterator[Finding]:
    for node in ctx.nodes():
        if isinstance(node, WindowAggregate) and node.on_proctime:
            col = ctx.lineage.display(node.input, node.window.time_field)
            yield Finding(
                node,
                f"Window on processing time (`{col}`): a row falls into the window of the moment it is processed, "
                "so a backlog, a restart or a re-run puts rows into other windows and changes the results",
                HINT,
                f"-- FROM TABLE({node.window.kind.value}(TABLE t, DESCRIPTOR(<event-time column>), ...))",
            )
        elif isinstance(node, (Deduplicate, TopN)) and getattr(node, "window", None) is not None and _proctime_window(node):
            yield Finding(node, f"Window {'deduplication' if isinstance(node, Deduplicate) else 'Top-N'} on processing-time windows: results depend on when rows are processed", HINT, None)
        elif isinstance(node, LookupJoin):
            _, right = join_sides(ctx, node)
            label = side_label(ctx, right, node.right)
            yield Finding(
                node,
                f"Lookup join (FOR SYSTEM_TIME AS OF a processing time) reads {label} as it is when each row is "
                "processed: an update to it changes the results of rows processed later, never those already emitted",
                "fine for slowly changing reference data; for exact results join a versioned table on the event time (a temporal join)",
                None,
            )
        elif isinstance(node, IntervalJoin) and (f := node.field(node.left_time)) is not None and f.time == TimeKind.PROCTIME:
            yield Finding(node, "Interval join on processing time: which rows match depends on when they are processed", HINT, None)
        elif isinstance(node, Deduplicate) and node.window is None and _kind(node, node.order_field) == TimeKind.PROCTIME:
            keep = "last" if node.keep_last else "first"
            yield Finding(
                node,
                f"Deduplication on processing time keeps the {keep} row per key to be processed, not the {keep} in the data: "
                "with a backlog or a re-run another row may be kept",
                "order by the event time to keep the earliest (ASC) or latest (DESC) row of the data",
                None,
            )
        elif isinstance(node, (OverAggregate, MatchRecognize)) and _kind(node, node.order_field) == TimeKind.PROCTIME:
            what = "OVER aggregation" if isinstance(node, OverAggregate) else "MATCH_RECOGNIZE"
            yield Finding(node, f"{what} ordered by processing time: rows are taken in arrival order, so results depend on when they are processed", HINT, None)


RULE = Rule(
    code="SE201",
    name="processing-time",
    severity=Severity.WARNING,
    category=Category.NONDETERMINISM,
    summary="Operator on processing time: results depend on when rows are processed",
    check=check,
)
