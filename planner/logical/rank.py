"""Recognizing Top-N and deduplication as Flink does: a ROW_NUMBER() (or RANK) OVER window whose
result is filtered by ``rn <= N`` becomes a Top-N; ``rn = 1`` ordered by a time attribute becomes
a deduplication (ASC keeps the first row per key, DESC the last). With window_start and
window_end among the partition keys it is a window Top-N / window deduplication."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from planner.binder.joins import and_all, conjuncts
from planner.logical.fields import WindowRole
from planner.logical.operators import Calc, Deduplicate, Node, OverAggregate, TopN
from planner.logical.specs import RANKING, AggFunc, WindowSpec
from planner.logical.visit import transform


def _rank_limit(cond: exp.Expr, rank: str) -> int | None:
    """N of `rank <= N`, `rank < N+1`, `rank = 1`, `rank BETWEEN 1 AND N` (or mirrored)."""
    def is_rank(e: exp.Expr) -> bool:
        return isinstance(e, exp.Column) and e.name == rank

    def number(e: exp.Expr) -> int | None:
        try:
            return int(e.name) if isinstance(e, exp.Literal) and not e.is_string else None
        except ValueError:
            return None

    if isinstance(cond, exp.Between) and is_rank(cond.this):
        lo, hi = number(cond.args["low"]), number(cond.args["high"])
        return hi if lo == 1 else None
    if not isinstance(cond, (exp.LTE, exp.LT, exp.EQ, exp.GTE, exp.GT)):
        return None
    a, b = cond.this, cond.expression
    if is_rank(b):  # N >= rank
        a, b = b, a
        cond = {exp.GTE: exp.LTE, exp.GT: exp.LT, exp.EQ: exp.EQ}.get(type(cond), type(cond))(this=a, expression=b)
    if not is_rank(a):
        return None
    n = number(b)
    if n is None:
        return None
    if isinstance(cond, exp.LTE):
        return n
    if isinstance(cond, exp.LT):
        return n - 1
    if isinstance(cond, exp.EQ):
        return 1 if n == 1 else None
    return None


def _rank_field_through(node: Node, name: str) -> tuple[OverAggregate, str, list[Calc]] | None:
    """Follow ``name`` down through projections to a rank OVER aggregate."""
    chain: list[Calc] = []
    while isinstance(node, Calc) and node.condition is None:
        proj = dict(node.projections)
        expr = proj.get(name)
        if not isinstance(expr, exp.Column):
            return None
        name = expr.name
        chain.append(node)
        node = node.input
    if isinstance(node, OverAggregate) and len(node.aggs) == 1 and node.aggs[0].func in RANKING and node.aggs[0].name == name:
        return node, name, chain
    return None


def window_of_keys(node: Node, keys: tuple[str, ...], windows: dict[int, WindowSpec]) -> WindowSpec | None:
    """The window whose start and end are among ``keys`` (fields of ``node``): a ranking
    partitioned by them is a window ranking."""
    roles: dict[int, set[WindowRole]] = {}
    for key in keys:
        f = node.field(key)
        if f is not None and f.window is not None:
            roles.setdefault(f.window.window_id, set()).add(f.window.role)
    for wid, found in roles.items():
        if {WindowRole.START, WindowRole.END} <= found:
            return windows.get(wid)
    return None


def _ranked(over: OverAggregate, n: int, windows: dict[int, WindowSpec]) -> Node:
    func = over.aggs[0].func
    rank_name = over.aggs[0].name
    window = window_of_keys(over.input, over.partition_keys, windows)
    order = over.order or ((over.order_field, False),)
    first_field = over.input.field(order[0][0])
    time_ordered = len(order) == 1 and first_field is not None and first_field.time is not None
    if n == 1 and func == AggFunc.ROW_NUMBER and time_ordered:
        return Deduplicate(
            over.fields,
            input=over.input,
            keys=over.partition_keys,
            order_field=order[0][0],
            keep_last=order[0][1],
            rank_field=rank_name,
            window=window,
            origin=over.origin,
        )
    return TopN(
        over.fields,
        input=over.input,
        partition_keys=over.partition_keys,
        order=order,
        n=n,
        rank_field=rank_name,
        rank_func=func,
        window=window,
        origin=over.origin,
    )


def recognize_ranks(plan: Node, windows: dict[int, WindowSpec]) -> Node:
    def rewrite(node: Node) -> Node:
        if not isinstance(node, Calc) or node.condition is None:
            return node
        parts = conjuncts(node.condition)
        for i, c in enumerate(parts):
            cols = list(c.find_all(exp.Column))
            if len(cols) != 1:
                continue
            found = _rank_field_through(node.input, cols[0].name)
            if found is None:
                continue
            over, _rank_name, chain = found
            n = _rank_limit(c, cols[0].name)
            if n is None or n < 1:
                continue
            new: Node = _ranked(over, n, windows)
            for calc in reversed(chain):
                new = replace(calc, input=new)
            rest = parts[:i] + parts[i + 1 :]
            return replace(node, input=new, condition=and_all(rest))
        return node

    return transform(plan, rewrite)
