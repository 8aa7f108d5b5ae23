"""Comparisons of floating values as Flink makes them. Flink compares two FLOAT or DOUBLE values
(or one with an integer) with Java's operators, so that NaN is neither below, above nor equal to
any value and ``NaN > 1``, ``NaN <= 1`` and ``1 < NaN`` are all false; Spark orders NaN above
every number. Its planner (Calcite) also rewrites ``NOT (a > b)`` to ``a <= b`` and
``a NOT BETWEEN lo AND hi`` to ``a < lo OR a > hi`` (with NaN these differ from a negation), and
simplifies a value compared with itself (``x <= x`` is true, NaN too). A DECIMAL against a
DOUBLE is compared by ``Double.compare``, NaN above every number, as Spark does. Measured with
PyFlink 2.3: tests/functions/cases/comparison.txt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from planner.logical import typing as T
from sqlengine.translate.calls import call

if TYPE_CHECKING:
    from sqlengine.translate.expressions import SparkExpressions

_ORDERED = (exp.GT, exp.GTE, exp.LT, exp.LTE)
_OPPOSITE: dict[type[exp.Expr], type[exp.Expr]] = {exp.GT: exp.LTE, exp.GTE: exp.LT, exp.LT: exp.GTE, exp.LTE: exp.GT}


def flink_comparison(n: exp.Expr, exprs: SparkExpressions) -> exp.Expr | None:
    """``n`` rewritten (its parts through ``exprs``) where Flink's comparison differs from
    Spark's, else None."""
    if isinstance(n, exp.Not) and isinstance(n.this, exp.Paren):
        inner = n.this.unnest()
        if isinstance(inner, (*_ORDERED, exp.Between)):
            return flink_comparison(exp.Not(this=inner.copy()), exprs)
    if isinstance(n, exp.Not) and isinstance(n.this, _ORDERED) and _java(exprs, n.this.this, n.this.expression):
        opposite = _OPPOSITE[type(n.this)](this=n.this.this.copy(), expression=n.this.expression.copy())
        return exprs.rewrite(opposite)
    if isinstance(n, exp.Not) and isinstance(n.this, exp.Between) and _java(exprs, *_bounds(n.this)):
        value, low, high = _bounds(n.this)
        return exprs.rewrite(exp.or_(exp.LT(this=value.copy(), expression=low.copy()),
                                     exp.GT(this=value.copy(), expression=high.copy())))
    if isinstance(n, exp.Between) and _java(exprs, *_bounds(n)):
        value, low, high = _bounds(n)
        return exprs.rewrite(exp.and_(exp.GTE(this=value.copy(), expression=low.copy()),
                                      exp.LTE(this=value.copy(), expression=high.copy())))
    if isinstance(n, _ORDERED) and _java(exprs, n.this, n.expression) and n.this != n.expression:
        return _nan_false(exprs.fixed_children(n))
    return None


def _bounds(b: exp.Between) -> tuple[exp.Expr, exp.Expr, exp.Expr]:
    return b.this, b.args["low"], b.args["high"]


def _java(exprs: SparkExpressions, *sides: exp.Expr) -> bool:
    """Flink compares these with Java's operators: one is FLOAT or DOUBLE, none a DECIMAL."""
    types = [exprs.type(s) for s in sides]
    return any(T.is_type(t, *T.FLOATS) for t in types) and not any(T.is_type(t, exp.DType.DECIMAL) for t in types)


def _nan_false(c: exp.Expr) -> exp.Expr:
    """NULL when either side is NULL, false when either is NaN, else Spark's comparison."""
    a, b = c.this, c.expression
    null = exp.or_(exp.Is(this=a.copy(), expression=exp.Null()), exp.Is(this=b.copy(), expression=exp.Null()))
    nan = exp.or_(call("isnan", a.copy()), call("isnan", b.copy()))
    return exp.Case(ifs=[exp.If(this=null, true=exp.Null()), exp.If(this=nan, true=exp.false())], default=c)
