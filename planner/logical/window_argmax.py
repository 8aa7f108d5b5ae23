"""A window join of a window aggregation with the MAX (or MIN) of that same aggregation per
window, on ``value >= max`` (or ``value = max``): the rows holding each window's maximum, ties
kept. Nexmark q5 ("hot items": the auctions with the most bids of each window) is written so.

Spark runs each side of a join as its own pipeline: written as a join, the window aggregation runs
twice (its state twice) and a stream-stream join keeps both sides' rows until the window closes.
As a window Top-1 with ties (a RANK per window, the NULLs left out as MAX leaves them out) the
aggregation runs once and nothing is joined. The rows are the same: a row's value is at most its
window's maximum, so ``value >= max`` holds exactly for the rows equal to it.

The rule applies only when both sides are the same event-time window aggregation (same operators,
same fields), the join condition is the window's bounds (and the MAX's other group keys) equal on both sides plus the one
comparison, and the MAX has no DISTINCT or FILTER; anything else stays a join.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from sqlglot import exp

from planner.binder.expressions import col
from planner.binder.joins import conjuncts
from planner.logical.fields import WindowRole
from planner.logical.joins import JoinKind, WindowJoin
from planner.logical.operators import Calc, Node, TopN, WindowAggregate
from planner.logical.rank import window_of_keys
from planner.logical.specs import AggFunc, WindowSpec
from planner.logical.visit import transform

# the comparisons that keep exactly the extreme rows: value >= MAX, value <= MIN, value = either
_KEEPS: dict[AggFunc, tuple[type[exp.Expr], ...]] = {AggFunc.MAX: (exp.GTE, exp.EQ), AggFunc.MIN: (exp.LTE, exp.EQ)}
_MIRROR: dict[type[exp.Expr], type[exp.Expr]] = {exp.GTE: exp.LTE, exp.LTE: exp.GTE, exp.EQ: exp.EQ}
RULE = "window join with its own MAX/MIN per window"


# what two copies of the same SQL may differ in: where they were written, and the ids the binder
# numbered their windows and nodes with
_IGNORED = frozenset({"origin", "node_id", "id", "window_id", "call", "input", "left", "right", "children"})


def _shape(value: object) -> object:
    """A value with the ids and positions left out, comparable between two copies of one subtree."""
    if isinstance(value, exp.Expr):
        return value.sql()
    if is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, tuple((f.name, _shape(getattr(value, f.name))) for f in fields(value) if f.name not in _IGNORED))
    if isinstance(value, (tuple, list)):
        return tuple(_shape(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), _shape(v)) for k, v in value.items()))
    return value


def same_tree(a: Node, b: Node) -> bool:
    """The same operators with the same fields and arguments, all the way down (the same SQL
    written twice): every field of each node compared, but for ids and positions."""
    if a is b:
        return True
    if type(a) is not type(b) or len(a.inputs) != len(b.inputs) or _shape(a) != _shape(b):
        return False
    return all(same_tree(x, y) for x, y in zip(a.inputs, b.inputs, strict=True))


def _renames(node: Node) -> tuple[Node, dict[str, str]] | None:
    """A Calc that only renames or drops columns: its input and, per output, the input column."""
    if not isinstance(node, Calc):
        return node, {f.name: f.name for f in node.fields}
    if node.condition is not None or not all(isinstance(e, exp.Column) and not e.table for _, e in node.projections):
        return None
    return node.input, {name: e.name for name, e in node.projections}


def _column(e: exp.Expr) -> str | None:
    return e.name if isinstance(e, exp.Column) and not e.table else None


def _argmax(join: WindowJoin, windows: dict[int, WindowSpec]) -> Node | None:
    left = _renames(join.left)
    right = _renames(join.right)
    if left is None or right is None:
        return None
    (base, left_names), (agg, right_names) = left, right
    if not isinstance(agg, WindowAggregate):
        return None
    if len(agg.aggs) != 1 or not agg.aggs[0].args:
        return None
    call = agg.aggs[0]
    if call.func not in _KEEPS or call.distinct or call.filter is not None or call.udf is not None:
        return None
    inner = _renames(agg.input)
    if inner is None or not same_tree(base, inner[0]):
        return None
    if not isinstance(base, WindowAggregate) or base.on_proctime:  # event-time windows of an aggregation
        return None
    agg_input = inner[1]
    measured = _column(call.args[0])
    if measured is None or measured not in agg_input:
        return None

    def right_source(name: str) -> str | None:
        """The column of the shared subtree behind a right-side field (None: the MAX)."""
        inner_name = right_names.get(name)
        if inner_name is None or inner_name == call.name:
            return None
        return agg_input.get(inner_name)

    # what the condition must equate: the MAX's group keys and its window's bounds
    bounds = {f.name for f in agg.fields if f.window is not None and f.window.role in (WindowRole.START, WindowRole.END)}
    needed = {agg_input.get(k) for k in (*agg.keys, *bounds)}
    equated: dict[str, str] = {}  # right field -> the left field it equals
    compared = False
    left_fields = {f.name for f in join.left.fields}
    for part in conjuncts(join.condition):
        if isinstance(part, exp.Paren):
            part = part.this
        if not isinstance(part, (exp.EQ, exp.GTE, exp.LTE)):
            return None
        op: type[exp.Expr] = type(part)
        a, b = _column(part.this), _column(part.expression)
        if a is None or b is None:
            return None
        if a not in left_fields:  # the left side written second: mirror the comparison
            a, b, op = b, a, _MIRROR[op]
        if a not in left_fields or b in left_fields:
            return None
        if right_names.get(b) == call.name:  # value <op> MAX
            if op not in _KEEPS[call.func] or left_names.get(a) != agg_input[measured] or compared:
                return None
            compared = True
        elif op is exp.EQ and right_source(b) is not None and right_source(b) == left_names.get(a):
            equated[b] = a
        else:
            return None
    if not compared or {right_source(b) for b in equated} != needed:
        return None
    value = next(a for a, w in left_names.items() if w == agg_input[measured])
    keys = tuple(a for a, w in left_names.items() if w in needed)
    window = window_of_keys(join.left, keys, windows)
    if window is None:
        return None
    # the NULLs out (MAX and MIN skip them; a NULL value, or a NULL key, equals nothing in the
    # join; a window's bounds are never NULL), then the top rows of each window and key, ties kept
    nullable = [value, *(k for k in keys if (f := join.left.field(k)) is not None and f.window is None)]
    present = Calc(join.left.fields, input=join.left, projections=tuple((f.name, col(f.name)) for f in join.left.fields),
                   condition=exp.and_(*(exp.Not(this=exp.Is(this=col(n), expression=exp.Null())) for n in nullable)),
                   origin=join.origin)
    top = TopN(join.left.fields, input=present, partition_keys=keys, order=((value, call.func == AggFunc.MAX),), n=1,
               rank_func=AggFunc.RANK, window=window, rule=RULE, origin=join.origin)
    # the right side's columns are the left's: the window's bounds and keys equated, the MAX the value
    out = [(f.name, col(f.name)) for f in join.left.fields]
    for f in join.right.fields:
        out.append((f.name, col(equated[f.name] if f.name in equated else value if right_names.get(f.name) == call.name
                                 else "")))
    if any(not e.name for _, e in out):
        return None  # a right-side column that is neither (not reached: the agg's fields are keys, bounds and the MAX)
    return Calc(join.fields, input=top, projections=tuple(out), origin=join.origin)


def rewrite_window_argmax(plan: Node, windows: dict[int, WindowSpec]) -> Node:
    def rewrite(node: Node) -> Node:
        if isinstance(node, WindowJoin) and node.join_kind == JoinKind.INNER:
            return _argmax(node, windows) or node
        return node

    return transform(plan, rewrite)
