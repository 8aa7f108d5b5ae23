"""A filter the binder puts over an input (a Calc keeping every field, and the rows that meet
the conjuncts), and which conjuncts may move below a join into one of its inputs."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.expressions import col, is_aggregate
from planner.binder.joins import and_all
from planner.logical.operators import Calc, Node
from planner.logical.walk import find_all


def filtered(node: Node, conds: list[exp.Expr], origin: exp.Expr | None = None) -> Node:
    """``node`` with the rows meeting all of ``conds``; ``node`` itself when there is none
    (simplify merges the filter with a projection below)."""
    if not conds:
        return node
    projections = tuple((f.name, col(f.name)) for f in node.fields)
    return Calc(node.fields, input=node, projections=projections, condition=and_all(conds), origin=origin)


def nests_query_or_aggregate(c: exp.Expr) -> bool:
    """Whether ``c`` holds a subquery or an aggregate call: it is evaluated where it is written,
    never moved into an input."""
    return any(isinstance(n, (exp.Subquery, exp.Select, exp.Exists)) or is_aggregate(n) for n in find_all(c, exp.Expr))
