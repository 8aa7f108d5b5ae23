"""Which join a JOIN is, decided as Flink decides it:

- ``FOR SYSTEM_TIME AS OF left.rowtime`` on a versioned table: a temporal join;
  ``AS OF left.proctime``: a lookup join;
- equal window_start and window_end of the same window on both sides: a window join;
- a condition that bounds one side's time attribute by the other's on both ends
  (``l.t BETWEEN r.t - INTERVAL .. AND r.t + INTERVAL ..``): an interval join;
- anything else: a regular join, which keeps every row of both sides.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypedDict

from sqlglot import exp

from planner.binder.intervals import interval_ms, is_interval
from planner.logical.fields import Field, TimeKind, WindowRole
from planner.logical.joins import IntervalJoin, Join, JoinKind, LookupJoin, TemporalJoin, WindowJoin
from planner.logical.operators import Node
from planner.logical.specs import WindowSpec
from planner.problems import BindError


def conjuncts(cond: exp.Expr | None) -> list[exp.Expr]:
    if cond is None:
        return []
    if isinstance(cond, exp.And):
        return conjuncts(cond.this) + conjuncts(cond.expression)
    if isinstance(cond, exp.Paren) and isinstance(cond.this, (exp.And, exp.Paren)):
        return conjuncts(cond.this)
    return [cond]


def column_literal(cond: exp.Expr) -> tuple[exp.Column, exp.Literal] | None:
    """(column, literal) of ``column = literal`` or ``literal = column``; None for anything else."""
    if not isinstance(cond, exp.EQ):
        return None
    pair = (cond.this, cond.expression)
    col = next((p for p in pair if isinstance(p, exp.Column)), None)
    lit = next((p for p in pair if isinstance(p, exp.Literal)), None)
    return (col, lit) if col is not None and lit is not None else None


def and_all(parts: list[exp.Expr]) -> exp.Expr | None:
    """AND of the parts; an OR part keeps its parentheses (the printed SQL must mean the same)."""
    out: exp.Expr | None = None
    for p in parts:
        if isinstance(p, exp.Or):
            p = exp.Paren(this=p)
        out = p if out is None else exp.And(this=out, expression=p)
    return out


def columns_of(e: exp.Expr) -> set[str]:
    return {c.name for c in e.find_all(exp.Column)}


def time_offset(e: exp.Expr) -> tuple[str, int] | None:
    """`col`, `col + INTERVAL ..`, `col - INTERVAL ..` as (column, offset ms)."""
    if isinstance(e, exp.Paren):
        return time_offset(e.this)
    if isinstance(e, exp.Column):
        return e.name, 0
    if isinstance(e, (exp.Add, exp.Sub)) and is_interval(e.expression):
        inner = time_offset(e.this)
        if inner is None:
            return None
        ms = interval_ms(e.expression)
        return inner[0], inner[1] + (ms if isinstance(e, exp.Add) else -ms)
    return None


def comparisons(c: exp.Expr) -> list[tuple[exp.Expr, str, exp.Expr]]:
    if isinstance(c, exp.Between):
        return [(c.this, ">=", c.args["low"]), (c.this, "<=", c.args["high"])]
    ops = {exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=", exp.EQ: "="}
    for cls, op in ops.items():
        if type(c) is cls:
            return [(c.this, op, c.expression)]
    return []


def interval_bounds(
    parts: list[exp.Expr], left: set[str], right: set[str], times: dict[str, Field]
) -> tuple[str, str, int, int] | None:
    """(left time, right time, lower ms, upper ms) with lower <= l - r <= upper, if the
    conjuncts bound two time attributes of the same kind on both ends (a strict bound in whole
    milliseconds: ``l > r`` is ``l - r >= 1``)."""
    lower: dict[tuple[str, str], int] = {}
    upper: dict[tuple[str, str], int] = {}
    for c in parts:
        for a, op, b in comparisons(c):
            ta, tb = time_offset(a), time_offset(b)
            if ta is None or tb is None:
                continue
            (fa, oa), (fb, ob) = ta, tb
            if fa in left and fb in right:
                lf, rf, sign = fa, fb, 1
            elif fa in right and fb in left:
                lf, rf, sign = fb, fa, -1
            else:
                continue
            if lf not in times or rf not in times or times[lf].time is None or times[lf].time != times[rf].time:
                continue
            # a + oa OP b + ob  ->  (a - b) OP ob - oa ; flip when a is the right side
            bound = (ob - oa) * sign
            op_eff = op if sign == 1 else {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}[op]
            key = (lf, rf)
            # in whole milliseconds (the times' precision): a strict bound is the next one in
            if op_eff in (">", ">=", "="):
                low = bound + 1 if op_eff == ">" else bound
                lower[key] = max(lower.get(key, low), low)
            if op_eff in ("<", "<=", "="):
                high = bound - 1 if op_eff == "<" else bound
                upper[key] = min(upper.get(key, high), high)
    for key, low in lower.items():
        if key in upper and low <= upper[key]:
            return key[0], key[1], low, upper[key]
    return None


def equi_keys(parts: list[exp.Expr], left: set[str], right: set[str]) -> list[tuple[str, str]]:
    keys = []
    for c in parts:
        if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Column):
            a, b = c.this.name, c.expression.name
            if a in left and b in right:
                keys.append((a, b))
            elif a in right and b in left:
                keys.append((b, a))
    return keys


def window_join_spec(
    keys: list[tuple[str, str]], fields: dict[str, Field], windows: dict[int, WindowSpec]
) -> tuple[WindowSpec, WindowSpec] | None:
    """The windows of the left and the right side, when the keys equate window_start and
    window_end of alike windows."""
    roles: dict[WindowRole, tuple[WindowSpec, WindowSpec]] = {}
    for lname, rname in keys:
        lf, rf = fields.get(lname), fields.get(rname)
        if lf is None or rf is None or lf.window is None or rf.window is None:
            continue
        if lf.window.role != rf.window.role:
            continue
        roles[lf.window.role] = (windows[lf.window.window_id], windows[rf.window.window_id])
    if WindowRole.START in roles and WindowRole.END in roles:
        ls, rs = roles[WindowRole.START]
        le, re_ = roles[WindowRole.END]
        if (ls.id, rs.id) == (le.id, re_.id) and _same_window(ls, rs):
            return ls, rs
    return None


def _same_window(a: WindowSpec, b: WindowSpec) -> bool:
    return (a.kind, a.size_ms, a.slide_ms, a.step_ms, a.gap_ms, a.offset_ms) == (
        b.kind, b.size_ms, b.slide_ms, b.step_ms, b.gap_ms, b.offset_ms
    )


def make_join(
    left: Node,
    right: Node,
    fields: tuple[Field, ...],
    kind: JoinKind,
    condition: exp.Expr | None,
    windows: dict[int, WindowSpec],
    temporal_time: tuple[str, Field] | None = None,
    origin: exp.Expr | None = None,
) -> Join:
    """The join node for ``condition`` over ``fields`` (left fields then right fields)."""
    n_left = len(left.fields)
    # an outer join pads the other side's columns with NULLs: they may be NULL whatever their source
    pad_left, pad_right = kind in (JoinKind.RIGHT, JoinKind.FULL), kind in (JoinKind.LEFT, JoinKind.FULL)
    fields = tuple(
        replace(f, nullable=True) if (pad_left if i < n_left else pad_right) else f for i, f in enumerate(fields)
    )
    left_names = {f.name for f in fields[:n_left]}
    right_names = {f.name for f in fields[n_left:]}
    by_name = {f.name: f for f in fields}
    parts = conjuncts(condition)
    keys = equi_keys(parts, left_names, right_names)
    # the regular join's fields: a regular join turns time attributes into plain timestamps (Flink)
    join = Join(
        tuple(f.materialized() for f in fields), left=left, right=right, join_kind=kind, condition=condition,
        equi_keys=tuple(keys), origin=origin,
    )

    if temporal_time is not None:
        time_name, time_field = temporal_time
        if time_field.time == TimeKind.ROWTIME:
            return TemporalJoin(**_join_args(join, fields), left_time=time_name)
        if time_field.time == TimeKind.PROCTIME:
            return LookupJoin(**_join_args(join, fields))
        raise BindError(
            "FOR SYSTEM_TIME AS OF needs a time attribute of the left table (its rowtime or a PROCTIME() column)",
            origin,
        )

    sides = window_join_spec(keys, by_name, windows)
    if sides is not None:
        left_w, right_w = sides
        return WindowJoin(**_join_args(join, fields), window=left_w, left_window=left_w.id, right_window=right_w.id)

    # a semi or anti join with a time bound stays a regular join, as in Flink (its interval join
    # is inner or outer only)
    bounds = interval_bounds(parts, left_names, right_names, by_name) if kind not in (JoinKind.SEMI, JoinKind.ANTI) else None
    if bounds is not None:
        lt, rt, lo, hi = bounds
        return IntervalJoin(**_join_args(join, fields), left_time=lt, right_time=rt, lower_ms=lo, upper_ms=hi)
    return join


class JoinArgs(TypedDict):
    fields: tuple[Field, ...]
    left: Node
    right: Node
    join_kind: JoinKind
    condition: exp.Expr | None
    equi_keys: tuple[tuple[str, str], ...]
    origin: exp.Expr | None


def _join_args(join: Join, fields: tuple[Field, ...]) -> JoinArgs:
    """The arguments every join operator takes, with ``fields`` (time attributes kept)."""
    return JoinArgs(
        fields=fields, left=join.left, right=join.right, join_kind=join.join_kind, condition=join.condition,
        equi_keys=join.equi_keys, origin=join.origin,
    )
