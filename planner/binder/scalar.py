"""Scalar subqueries in the select list and WHERE: ``price > (SELECT AVG(price) FROM bids)``.

As Flink plans an uncorrelated one, the subquery's single row is joined to every row of the
outer input (a join without a key, LEFT so that an empty subquery gives NULL), and the
expression reads its column. Flink fails a job at run time when such a subquery returns a second
row; here a subquery must be one that cannot (an aggregation without GROUP BY, LIMIT 1, one
VALUES row), or it is refused before anything runs. A correlated one is refused with a hint."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.base import BinderBase
from planner.binder.expressions import col
from planner.binder.joins import make_join
from planner.binder.scope import Scope
from planner.logical.copying import copy_replacing
from planner.logical.fields import unique_names
from planner.logical.joins import JoinKind
from planner.logical.operators import Calc, GroupAggregate, Node, Sort, Values
from planner.problems import BindError


class ScalarSubqueryMixin(BinderBase):
    """Mixed into Binder (through SelectMixin)."""

    def bind_scalar_subqueries(
        self, node: Node, scope: Scope, exprs: list[exp.Expr]
    ) -> tuple[Node, list[exp.Expr]]:
        """The input joined with the row of each scalar subquery in ``exprs``, and ``exprs`` with
        each subquery replaced by a reference to its column (hidden from ``*``)."""
        found = [s for e in exprs for s in _scalar_subqueries(e)]
        if not found:
            return node, exprs
        replaced: dict[int, str] = {}
        for sub_expr in found:
            sub = self._bind_scalar(sub_expr, scope)
            taken = [f.name for f in node.fields] + list(scope.hidden)
            name = unique_names([*taken, "$scalar"])[-1]
            right = Calc((sub.fields[0].renamed(name),), input=sub, projections=((name, col(sub.fields[0].name)),))
            node = make_join(node, right, node.fields + right.fields, JoinKind.LEFT, None, self.windows, origin=sub_expr)
            scope.hidden[name] = node.fields[-1]
            replaced[id(sub_expr)] = name
        return node, [_replace(e, replaced) if any(id(n) in replaced for n in e.walk()) else e for e in exprs]

    def _bind_scalar(self, sub_expr: exp.Subquery, scope: Scope) -> Node:
        try:
            sub = self.bind_query(sub_expr.this)
        except BindError as err:
            outer = err.node if isinstance(err.node, exp.Column) and _resolves(err.node, scope) else None
            if outer is not None:
                raise BindError(
                    f"This scalar subquery reads `{outer.sql()}` of the outer query: correlated scalar subqueries are "
                    "not supported yet",
                    outer,
                    "write it as a join with an aggregation grouped by the correlated column",
                ) from None
            raise err from None
        if len(sub.fields) != 1:
            raise BindError(f"A scalar subquery must select exactly one column, not {len(sub.fields)}", sub_expr)
        if not _at_most_one_row(sub):
            raise BindError(
                "This scalar subquery may return more than one row (Flink would fail the job when it does)",
                sub_expr,
                "aggregate it without GROUP BY (MAX(...), AVG(...)), or add LIMIT 1",
            )
        return sub


def _scalar_subqueries(e: exp.Expr) -> list[exp.Subquery]:
    """The subqueries used as values in ``e`` (not those of IN or EXISTS, nor ones nested in
    another subquery)."""
    out: list[exp.Subquery] = []
    todo = [e]
    while todo:
        n = todo.pop()
        if isinstance(n, exp.Subquery) and not isinstance(n.parent, (exp.In, exp.Exists)):
            out.append(n)
            continue
        if isinstance(n, (exp.Select, exp.Exists)) or (isinstance(n, exp.In) and n.args.get("query") is not None):
            if isinstance(n, exp.In):
                todo.append(n.this)
            continue
        todo.extend(n.iter_expressions())
    return out


def _replace(e: exp.Expr, replaced: dict[int, str]) -> exp.Expr:
    """``e`` with its scalar subqueries replaced by column references (a copy; ``e`` unchanged)."""
    return copy_replacing(e, lambda n, _root: col(replaced[id(n)]) if id(n) in replaced else None)


def _at_most_one_row(node: Node) -> bool:
    while isinstance(node, Calc):
        node = node.input
    if isinstance(node, GroupAggregate):
        return not node.keys and not node.distinct_only
    if isinstance(node, Sort):
        return node.limit is not None and node.limit <= 1
    return isinstance(node, Values) and len(node.rows) <= 1


def _resolves(column: exp.Column, scope: Scope) -> bool:
    try:
        scope.resolve(column)
    except BindError:
        return False
    return True
