"""Concrete SQL for the rewrites diagnostics suggest, built from the plan's own names."""

from __future__ import annotations

from sqlglot import exp

from planner.logical.fields import TimeKind
from planner.logical.operators import Join, Node, Scan
from planner.rules.base import RuleContext

FORMAT_BUCKETS = (
    ("ss", "INTERVAL '1' SECOND"),
    ("mm", "INTERVAL '1' MINUTE"),
    ("HH", "INTERVAL '1' HOUR"),
    ("dd", "INTERVAL '1' DAY"),
)


def _rowtime_scan(scans: list[Scan]) -> Scan | None:
    return next((s for s in scans if s.watermark_field), None)


def bucket_interval(ctx: RuleContext, node: Node, key: str | None) -> str:
    """The window size that replaces a time-bucket key (DATE_FORMAT(ts, 'yyyy-MM-dd') -> 1 DAY)."""
    if key is None or not node.inputs:
        return "INTERVAL '1' DAY"
    origin = ctx.lineage.origin(node.inputs[0], key)
    expr = origin.expr
    if expr is None:
        return "INTERVAL '1' DAY"
    for lit in expr.find_all(exp.Literal):
        if lit.is_string:
            for token, interval in FORMAT_BUCKETS:
                if token in lit.this:
                    return interval
    for unit in ("SECOND", "MINUTE", "HOUR", "DAY"):
        if unit in expr.sql().upper():
            return f"INTERVAL '1' {unit}"
    return "INTERVAL '1' DAY"


def window_rewrite(scans: list[Scan], interval: str, keys: list[str]) -> str:
    scan = _rowtime_scan(scans)
    if scan is None:
        name = scans[0].table.name if scans else "t"
        return (
            f"-- declare event time on `{name}` first, e.g. WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,\n"
            "-- then aggregate per window as below"
        )
    group = ", ".join([*keys, "window_start", "window_end"])
    return (
        f"SELECT {group}, ...\n"
        f"FROM TABLE(TUMBLE(TABLE {scan.table.name}, DESCRIPTOR(`{scan.watermark_field}`), {interval}))\n"
        f"GROUP BY {group}"
    )


def ttl_rewrite(ttl: str = "1 d") -> str:
    return (
        f"SET 'table.exec.state.ttl' = '{ttl}';  -- or, for one query: /*+ STATE_TTL('t' = '{ttl}') */\n"
        f"-- a key idle for {ttl} is forgotten: its next row starts again from nothing (results change)"
    )


def _time_of(ctx: RuleContext, node: Node) -> tuple[str, str] | None:
    """(table, column) of a rowtime attribute available in ``node``'s output."""
    for f in node.fields:
        if f.time == TimeKind.ROWTIME:
            src = ctx.lineage.sources(node, (f.name,))[0]
            if src is not None:
                return src
            tables = ctx.lineage.tables(node)
            return (tables[0] if tables else "t", ctx.lineage.display(node, f.name))
    return None


def interval_join_rewrite(ctx: RuleContext, join: Join) -> str:
    left, right = _time_of(ctx, join.left), _time_of(ctx, join.right)
    if left is None or right is None:
        missing = [t for t, side in ((left, join.left), (right, join.right)) if t is None for t in ctx.lineage.tables(side)]
        return (
            f"-- give {', '.join(f'`{m}`' for m in missing) or 'both sides'} an event-time attribute "
            "(WATERMARK FOR ...), then bound the join in time:\n"
            "-- ... AND l.ts BETWEEN r.ts - INTERVAL '1' HOUR AND r.ts + INTERVAL '1' HOUR"
        )
    (lt, lc), (rt, rc) = left, right
    return (
        f"... JOIN ... ON <the join condition>\n"
        f"  AND {lt}.`{lc}` BETWEEN {rt}.`{rc}` - INTERVAL '1' HOUR AND {rt}.`{rc}` + INTERVAL '1' HOUR\n"
        "-- choose the interval in which matching rows of both sides arrive; rows outside it no longer join"
    )
