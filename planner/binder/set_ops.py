"""INTERSECT and EXCEPT [ALL], planned as one aggregation over both inputs, as Flink's rewrite of
INTERSECT ALL / EXCEPT ALL does (its distinct forms become a semi or anti join and a DISTINCT;
the result is the same): every row of the left input counts 1 for the left, every row of the
right 1 for the right, grouped by all columns (NULLs group together, as set operations compare
them), and a row value is kept

- INTERSECT: when both counts are positive (ALL: min(left, right) copies);
- EXCEPT: when the left count is positive and the right one zero (ALL: left - right copies).

The aggregation keeps the two counts per distinct row value: a changelog operator whose result
retracts (a row of the right input arriving later takes a row out of an EXCEPT)."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.expressions import col
from planner.binder.order import OrderMixin
from planner.logical import typing as T
from planner.logical.fields import Field
from planner.logical.operators import Calc, Correlate, GroupAggregate, Node, Union
from planner.logical.specs import AggCall, AggFunc
from planner.problems import BindError

LEFT, RIGHT = "$left", "$right"  # the count columns: names no query column has (binder names are plain)


class SetOpsMixin(OrderMixin):
    """Mixed into Binder."""

    def bind_set_difference(self, query: exp.Intersect | exp.Except) -> Node:
        op = "INTERSECT" if isinstance(query, exp.Intersect) else "EXCEPT"
        keep_all = not query.args.get("distinct")
        left, right = self.bind_query(query.this), self.bind_query(query.expression)
        if len(left.fields) != len(right.fields):
            raise BindError(f"{op} inputs have {len(left.fields)} and {len(right.fields)} columns", query.expression)
        fields = tuple(_common(a, b) for a, b in zip(left.fields, right.fields, strict=True))
        names = tuple(f.name for f in fields)
        one, zero = _bigint(1), _bigint(0)
        counted = [
            Calc(
                fields + (Field(LEFT, T.BIGINT, nullable=False), Field(RIGHT, T.BIGINT, nullable=False)),
                input=side,
                projections=(*((n, col(f.name)) for n, f in zip(names, side.fields, strict=True)), (LEFT, lc), (RIGHT, rc)),
            )
            for side, lc, rc in ((left, one, zero), (right, zero, one))
        ]
        both = Union(counted[0].fields, children=tuple(counted), all=True)
        sums = (AggCall(LEFT, AggFunc.SUM, (col(LEFT),)), AggCall(RIGHT, AggFunc.SUM, (col(RIGHT),)))
        agg = GroupAggregate(
            tuple(f.materialized() for f in both.fields), input=both, keys=names, aggs=sums, set_operation=op, origin=query
        )
        positive = exp.GT(this=col(LEFT), expression=_bigint(0))
        if op == "INTERSECT":
            keep: exp.Expr = exp.And(this=positive, expression=exp.GT(this=col(RIGHT), expression=_bigint(0)))
            copies: exp.Expr = exp.Least(this=col(LEFT), expressions=[col(RIGHT)])
        else:
            keep = exp.GT(this=col(LEFT), expression=col(RIGHT)) if keep_all else exp.And(
                this=positive, expression=exp.EQ(this=col(RIGHT), expression=_bigint(0))
            )
            copies = exp.Sub(this=col(LEFT), expression=col(RIGHT))
        node: Node = Calc(agg.fields, input=agg, projections=tuple((f.name, col(f.name)) for f in agg.fields), condition=keep)
        if keep_all:  # each kept row value as many times as it counts
            repeat = exp.Anonymous(this="ARRAY_REPEAT", expressions=[exp.Literal.number(1), exp.cast(copies, "INT")])
            node = Correlate(node.fields + (Field("$copy", T.INT, nullable=False),), input=node, call=exp.Unnest(expressions=[repeat]))
        out = tuple(f.materialized() for f in fields)
        node = Calc(out, input=node, projections=tuple((n, col(n)) for n in names), origin=query)
        return self.order_limit(node, query, {}, len(names))


def _common(a: Field, b: Field) -> Field:
    return Field(a.name, T.set_operation_type(a.type, b.type), nullable=a.nullable or b.nullable)


def _bigint(n: int) -> exp.Expr:
    return exp.cast(exp.Literal.number(n), "BIGINT")
