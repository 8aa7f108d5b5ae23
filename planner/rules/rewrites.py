"""Concrete SQL for the rewrites diagnostics suggest, in the user's own names (views, aliases,
columns as written), so that the suggestion can be pasted back."""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from planner.dialect import Flink
from planner.durations import format_duration
from planner.logical.fields import WindowTag
from planner.logical.joins import Join
from planner.logical.operators import Node
from planner.rules.base import RuleContext
from planner.rules.naming import (
    enclosing_select,
    from_relation,
    join_sides,
    on_condition,
    rowtime_column,
    sql,
    written_origin,
)

FORMAT_BUCKETS = (
    ("ss", "INTERVAL '1' SECOND"),
    ("mm", "INTERVAL '1' MINUTE"),
    ("HH", "INTERVAL '1' HOUR"),
    ("dd", "INTERVAL '1' DAY"),
)


def interval_sql(ms: int) -> str:
    for unit, size in (("DAY", 86_400_000), ("HOUR", 3_600_000), ("MINUTE", 60_000), ("SECOND", 1000)):
        if ms >= size and ms % size == 0:
            return f"INTERVAL '{ms // size}' {unit}"
    return f"INTERVAL '{max(ms, 1) / 1000:g}' SECOND"


def bucket_interval(ctx: RuleContext, node: Node, key: str | None) -> str:
    """The window size that replaces a time-bucket key (DATE_FORMAT(ts, 'yyyy-MM-dd') -> 1 DAY)."""
    if key is None or not node.inputs:
        return "INTERVAL '1' DAY"
    ms = ctx.lineage.bucket_ms(node.inputs[0], key)
    return interval_sql(ms) if ms and ms <= 86_400_000 else "INTERVAL '1' DAY"


def _quote(name: str) -> str:
    return f"`{name}`"


def tvf(table: str, time: str, interval: str, alias: str | None) -> exp.Expr:
    text = f"SELECT * FROM TABLE(TUMBLE(TABLE {_quote(table)}, DESCRIPTOR({_quote(time)}), {interval}))"
    if alias:
        text += f" AS {alias}"
    from_: exp.Expr = sqlglot.parse_one(text, read=Flink).args["from_"]
    return from_


def window_rewrite(ctx: RuleContext, node: Node, interval: str) -> str | None:
    key = ("window", node.node_id, interval)
    if key not in ctx.memo:
        ctx.memo[key] = _window_rewrite(ctx, node, interval)
    found: str | None = ctx.memo[key]
    return found


def _window_rewrite(ctx: RuleContext, node: Node, interval: str) -> str | None:
    """The aggregation ``node`` came from, over TUMBLE windows of its FROM table: the GROUP BY
    gains window_start, window_end; a time bucket of the time column becomes one of window_start
    (DATE_FORMAT(ts, 'yyyy-MM-dd') -> DATE_FORMAT(window_start, 'yyyy-MM-dd'), the same value).
    None when the input has no event-time attribute (a window needs one)."""
    time = rowtime_column(ctx, node.inputs[0]) if node.inputs else None
    if time is None:
        return None
    rel = from_relation(ctx, node)
    select = enclosing_select(ctx, node)
    if rel is None or rel.name is None or select is None or select.args.get("group") is None:
        return (
            f"-- aggregate per window of the event time `{time}` (name the FROM clause as a view v first):\n"
            f"SELECT ..., window_start, window_end\n"
            f"FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(`{time}`), {interval}))\n"
            f"GROUP BY ..., window_start, window_end"
        )
    new = select.copy()
    alias = rel.qualifier if rel.qualifier != rel.name else None
    new.set("from_", tvf(rel.name, time, interval, alias))
    keys = list(new.args["group"].expressions)
    replaced: list[tuple[exp.Expr, exp.Expr]] = []
    out_keys = []
    for k in keys:
        refs_time = any(c.name == time for c in k.find_all(exp.Column))
        if isinstance(k, exp.Column) and k.name == time:
            continue  # grouping by the raw time column: the window replaces it
        if refs_time:
            moved = k.copy().transform(lambda n: exp.column("window_start") if isinstance(n, exp.Column) and n.name == time else n)
            replaced.append((k, moved))
            out_keys.append(moved)
        else:
            out_keys.append(k)
    out_keys += [exp.column("window_start"), exp.column("window_end")]
    new.set("group", exp.Group(expressions=out_keys))
    if replaced:
        new.set("expressions", [_swap(e, replaced) for e in new.expressions])
    return new.sql(dialect=Flink, pretty=True)


def _swap(e: exp.Expr, pairs: list[tuple[exp.Expr, exp.Expr]]) -> exp.Expr:
    def fn(n: exp.Expr) -> exp.Expr:
        for old, new in pairs:
            if n == old:
                return new.copy()
        return n

    return e.transform(fn)


def ttl_rewrite(ctx: RuleContext, node: Node, ttl: str = "1 d", what: str = "key") -> str:
    rel = from_relation(ctx, node)
    hint = f"/*+ STATE_TTL('{rel.qualifier}' = '{ttl}') */" if rel is not None and rel.qualifier else f"/*+ STATE_TTL('<table or alias>' = '{ttl}') */"
    return (
        f"SET 'table.exec.state.ttl' = '{ttl}';\n"
        f"-- or only for this query: SELECT {hint} ...\n"
        f"-- a {what} idle for {ttl} is forgotten and starts again from nothing: results change (SE108)\n"
        "-- (on Spark the operator then runs as a changelog operator, which enforces the TTL: SE302)"
    )


def _window_time_hint(node: Node) -> str | None:
    tags = [f for f in node.fields if isinstance(f.window, WindowTag)]
    if tags:
        return "select window_time (the window's time attribute) instead of window_start/window_end, which are plain timestamps"
    return None


def interval_join_rewrite(ctx: RuleContext, join: Join) -> str:
    left, right = join_sides(ctx, join)
    lt, rt = rowtime_column(ctx, join.left), rowtime_column(ctx, join.right)
    lq = left.qualifier if left is not None and left.qualifier else "l"
    rq = right.qualifier if right is not None and right.qualifier else "r"
    on = on_condition(ctx, join) or "ON <the join condition>"
    missing = []
    for side, t, q in ((join.left, lt, lq), (join.right, rt, rq)):
        if t is not None:
            continue
        has_wm = any(s.watermark_field for s in ctx.lineage.scans(side))
        why = _window_time_hint(side) if has_wm else None
        if why is None and has_wm:
            why = "its event time is lost below (a regular join or aggregation turns it into a plain timestamp)"
        if why is None:
            tables = ", ".join(f"`{t}`" for t in ctx.lineage.tables(side)) or "its table"
            why = f"declare one: WATERMARK FOR <ts> AS <ts> - INTERVAL '5' SECOND on {tables}"
        missing.append(f"-- {q} has no event-time attribute: {why}")
    lcol = f"{lq}.`{lt}`" if lt else f"{lq}.<event time>"
    rcol = f"{rq}.`{rt}`" if rt else f"{rq}.<event time>"
    lines = missing + [
        f"... {on}",
        f"  AND {lcol} BETWEEN {rcol} - INTERVAL '1' HOUR AND {rcol} + INTERVAL '1' HOUR",
        "-- choose the interval in which matching rows of both sides arrive; rows farther apart no longer join",
    ]
    return "\n".join(lines)


def window_rank_rewrite(ctx: RuleContext, node: Node, time: str | None, interval: str) -> str | None:
    """A ROW_NUMBER() filter query made per window: PARTITION BY window_start, window_end, ...
    over TUMBLE windows of its FROM table (window deduplication / window Top-N)."""
    origin = written_origin(ctx, node)
    rel = from_relation(ctx, node)
    if not isinstance(origin, exp.Window) or rel is None or rel.name is None or time is None:
        return None
    # the SELECT with the window function, and the query around it that filters the rank
    inner = enclosing_select(ctx, node)
    if inner is None:
        return None
    top = inner.find_ancestor(exp.Select) or inner
    copy = top.copy()
    window = next((w for w in copy.find_all(exp.Window) if w == origin), None)
    select = window.find_ancestor(exp.Select) if window is not None else None
    if window is None or select is None:
        return None
    parts = [exp.column("window_start"), exp.column("window_end"), *(window.args.get("partition_by") or [])]
    window.set("partition_by", parts)
    select.set("from_", tvf(rel.name, time, interval, rel.qualifier if rel.qualifier != rel.name else None))
    return copy.sql(dialect=Flink, pretty=True)


def watermark_rewrite(table: str, column: str, delay_ms: int) -> str:
    return (
        f"ALTER TABLE `{table}` MODIFY WATERMARK FOR `{column}` AS `{column}` - {interval_sql(delay_ms)};\n"
        f"-- rows later than {format_duration(delay_ms)} are then dropped: choose the lateness you actually see"
    )


__all__ = [
    "bucket_interval",
    "interval_join_rewrite",
    "interval_sql",
    "sql",
    "ttl_rewrite",
    "tvf",
    "watermark_rewrite",
    "window_rank_rewrite",
    "window_rewrite",
]
