"""Bound expressions evaluated over Python values, with SQL's three-valued logic: the part of a
changelog join's condition that is not an equality of keys (an outer, semi or anti join decides
per pair of rows whether they match, so the condition runs inside the operator).

A small, closed set of expressions: column references, literals (numbers, strings, booleans,
NULL, intervals), comparisons, arithmetic, AND/OR/NOT, IS [NOT] NULL, BETWEEN, IN lists, ABS,
COALESCE, CASE and IF. The checker asks ``unsupported`` before anything runs;
``compile_expression`` makes the function.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from planner.binder.joins import and_all, conjuncts
from planner.logical.fields import Field
from planner.logical.joins import IntervalJoin, Join

Row = Sequence[Any]
Fn = Callable[[Row], Any]

_COMPARISONS: dict[type[exp.Expr], Callable[[Any, Any], bool]] = {
    exp.EQ: lambda a, b: a == b,
    exp.NEQ: lambda a, b: a != b,
    exp.GT: lambda a, b: a > b,
    exp.GTE: lambda a, b: a >= b,
    exp.LT: lambda a, b: a < b,
    exp.LTE: lambda a, b: a <= b,
}
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)
_UNITS_MS = {
    "MILLISECOND": 1,
    "SECOND": 1000,
    "MINUTE": 60_000,
    "HOUR": 3_600_000,
    "DAY": 86_400_000,
}
SUPPORTED: tuple[type[exp.Expr], ...] = (
    exp.Column, exp.Literal, exp.Boolean, exp.Null, exp.Paren, exp.And, exp.Or, exp.Not, exp.Is,
    exp.Between, exp.In, exp.Neg, exp.Interval, exp.Var, exp.Abs, exp.Coalesce, exp.Case, exp.If,
    *_COMPARISONS, *_ARITHMETIC,
)


def residual_condition(join: Join) -> exp.Expr | None:
    """The join's condition without its equalities of keys (``equi_keys``), or None."""
    keys = set(join.equi_keys)
    rest = []
    for c in conjuncts(join.condition):
        if isinstance(c, exp.Boolean) and c.this is True:  # ON TRUE: a join without a condition
            continue
        if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Column):
            a, b = c.this.name, c.expression.name
            if (a, b) in keys or (b, a) in keys:
                continue
        rest.append(c)
    return and_all(rest)


def one_sided_residual(join: Join, residual: exp.Expr | None) -> tuple[exp.Expr | None, exp.Expr | None, exp.Expr | None]:
    """The conjuncts of the join's ``residual_condition`` on the left side's fields only, on the
    right's only, and the rest (each None when there is none). A row that fails its side's
    conjuncts can match nothing, as if its key were NULL, whatever the join's kind: the JVM join
    runs them so."""
    width = len(join.left.fields)
    names = join.field_names()
    left, right = set(names[:width]), set(names[width:])
    out: tuple[list[exp.Expr], list[exp.Expr], list[exp.Expr]] = ([], [], [])
    for c in conjuncts(residual):
        used = {col.name for col in c.find_all(exp.Column)}
        out[0 if used and used <= left else 1 if used and used <= right else 2].append(c)
    return and_all(out[0]), and_all(out[1]), and_all(out[2])


def interval_residual(join: IntervalJoin) -> exp.Expr | None:
    """An interval join's condition without its equalities of keys and the comparisons of its two
    times (the bound, which the operator checks on the times itself), or None."""
    residual = residual_condition(join)
    if residual is None:
        return None
    times = {join.left_time, join.right_time}
    rest = conjuncts(residual)
    kept = [c for c in rest if not times <= {col.name for col in c.find_all(exp.Column)}]
    if not kept:
        return None
    out = kept[0]
    for c in kept[1:]:
        out = exp.And(this=out, expression=c)
    return out


def unsupported(e: exp.Expr, fields: Sequence[Field]) -> str | None:
    """The first part of ``e`` this module cannot evaluate, as SQL, or None."""
    names = {f.name for f in fields}
    for node in e.walk():
        if isinstance(node, exp.Identifier):
            continue  # a column's (or an interval unit's) name, read with its parent
        if not isinstance(node, SUPPORTED):
            return node.sql()
        if isinstance(node, exp.Column) and node.name not in names:
            return node.sql()
        if isinstance(node, exp.In) and node.args.get("query") is not None:
            return node.sql()
        if isinstance(node, exp.Interval) and _interval_ms(node) is None:
            return node.sql()
        if isinstance(node, exp.Is) and not isinstance(node.expression, exp.Null):
            return node.sql()  # IS TRUE / IS DISTINCT FROM
    return None


def _connective(left: Callable[[Row], Any], right: Callable[[Row], Any], stop: bool) -> Callable[[Row], bool | None]:
    decided, undecided = stop, not stop  # (`a is stop` would narrow `stop` itself to Any)

    def evaluate(row: Row) -> bool | None:
        a = left(row)
        if a is stop:
            return decided
        b = right(row)
        if b is stop:
            return decided
        return None if a is None or b is None else undecided

    return evaluate


def _interval_ms(node: exp.Interval) -> int | None:
    unit = node.args.get("unit")
    value = node.this
    if unit is None or not isinstance(value, exp.Literal):
        return None
    size = _UNITS_MS.get(unit.name.upper().rstrip("S"))
    try:
        return int(decimal.Decimal(value.this) * size) if size is not None else None
    except decimal.InvalidOperation:
        return None


def _literal(node: exp.Literal) -> Any:
    if node.is_string:
        return node.this
    text = node.this
    if any(c in text for c in ".eE"):
        return decimal.Decimal(text)  # a Flink literal with a point is a DECIMAL
    return int(text)


def _numbers(a: Any, b: Any) -> tuple[Any, Any]:
    """Operands made compatible: a float with a Decimal computes in float (as DOUBLE wins)."""
    if isinstance(a, float) and isinstance(b, decimal.Decimal):
        return a, float(b)
    if isinstance(b, float) and isinstance(a, decimal.Decimal):
        return float(a), b
    return a, b


def _arithmetic(kind: type[exp.Expr], a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    a, b = _numbers(a, b)
    if kind is exp.Add:
        return a + b
    if kind is exp.Sub:
        return a - b
    if kind is exp.Mul:
        return a * b
    if b == 0:
        return None
    if isinstance(a, int) and isinstance(b, int):  # integer division and remainder truncate
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if kind is exp.Div else a - q * b
    if kind is exp.Div:
        return a / b
    return a % b


def _compare(op: Callable[[Any, Any], bool], a: Any, b: Any) -> bool | None:
    if a is None or b is None:
        return None
    a, b = _numbers(a, b)
    return op(a, b)


def _conditional(node: exp.Case | exp.If, build: Callable[[exp.Expr], Fn]) -> Fn:
    """CASE [operand] WHEN ... THEN ... [ELSE ...] END, and IF(condition, then, else): the first
    branch whose condition is TRUE (or whose value equals the operand), else the default (NULL)."""
    if isinstance(node, exp.If):
        branches, default, operand = [(node.this, node.args["true"])], node.args.get("false"), None
    else:
        branches = [(b.this, b.args["true"]) for b in node.args.get("ifs") or []]
        default, operand = node.args.get("default"), node.this
    ops = [(build(w), build(t)) for w, t in branches]
    otherwise = build(default) if default is not None else (lambda row: None)
    subject = build(operand) if operand is not None else None
    eq = _COMPARISONS[exp.EQ]

    def evaluate(row: Row) -> Any:
        value = subject(row) if subject is not None else None
        for when, then in ops:
            hit = _compare(eq, value, when(row)) if subject is not None else when(row)
            if hit is True:
                return then(row)
        return otherwise(row)

    return evaluate


def compile_expression(e: exp.Expr, names: Sequence[str]) -> Fn:
    """A function of a row (values in the order of ``names``) giving the value of ``e``, NULL as
    None. Raises ValueError on what ``unsupported`` names."""
    index = {n: i for i, n in enumerate(names)}

    def build(node: exp.Expr) -> Fn:
        if isinstance(node, exp.Paren):
            return build(node.this)
        if isinstance(node, exp.Column):
            i = index[node.name]
            return lambda row: row[i]
        if isinstance(node, exp.Null):
            return lambda row: None
        if isinstance(node, exp.Boolean):
            flag = bool(node.this)
            return lambda row: flag
        if isinstance(node, exp.Literal):
            lit = _literal(node)
            return lambda row: lit
        if isinstance(node, exp.Interval):
            ms = _interval_ms(node)
            if ms is None:
                raise ValueError(node.sql())
            delta = datetime.timedelta(milliseconds=ms)
            return lambda row: delta
        if isinstance(node, exp.Neg):
            inner = build(node.this)
            return lambda row: None if (v := inner(row)) is None else -v
        if isinstance(node, exp.Not):
            inner = build(node.this)
            return lambda row: None if (v := inner(row)) is None else not v
        if isinstance(node, (exp.And, exp.Or)):
            # three-valued: AND stops at FALSE, OR at TRUE; otherwise NULL if either is NULL
            return _connective(build(node.this), build(node.expression), stop=isinstance(node, exp.Or))
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            inner = build(node.this)
            return lambda row: inner(row) is None
        cmp = _COMPARISONS.get(type(node))
        if cmp is not None:
            left, right = build(node.this), build(node.expression)
            return lambda row: _compare(cmp, left(row), right(row))
        if isinstance(node, _ARITHMETIC):
            left, right = build(node.this), build(node.expression)
            kind = type(node)
            return lambda row: _arithmetic(kind, left(row), right(row))
        if isinstance(node, exp.Between):
            value, low, high = build(node.this), build(node.args["low"]), build(node.args["high"])

            def between(row: Row) -> bool | None:
                v, lo, hi = value(row), low(row), high(row)
                a, b = _compare(_COMPARISONS[exp.GTE], v, lo), _compare(_COMPARISONS[exp.LTE], v, hi)
                if a is False or b is False:
                    return False
                return None if a is None or b is None else True

            return between
        if isinstance(node, exp.Abs):
            inner = build(node.this)
            return lambda row: None if (v := inner(row)) is None else abs(v)
        if isinstance(node, exp.Coalesce):
            parts = [build(node.this), *(build(x) for x in node.expressions)]
            return lambda row: next((v for p in parts if (v := p(row)) is not None), None)
        if isinstance(node, (exp.Case, exp.If)):
            return _conditional(node, build)
        if isinstance(node, exp.In) and node.args.get("query") is None:
            value = build(node.this)
            options = [build(o) for o in node.expressions]

            def in_(row: Row) -> bool | None:
                v = value(row)
                if v is None:
                    return None
                unknown = False
                for o in options:
                    r = _compare(_COMPARISONS[exp.EQ], v, o(row))
                    if r:
                        return True
                    unknown = unknown or r is None
                return None if unknown else False

            return in_
        raise ValueError(node.sql())

    return build(e)
