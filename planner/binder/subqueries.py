"""Subquery predicates of WHERE, bound as Flink's planner rewrites them: ``x [NOT] IN (SELECT y
...)`` and ``[NOT] EXISTS (SELECT ... WHERE <correlated>)`` become semi and anti joins of the
outer input with the subquery. NOT IN is null-aware: a NULL on either side makes ``x NOT IN``
unknown, so the anti join's condition is ``x = y OR x IS NULL OR y IS NULL`` (only the IS NULL
terms a side can need), and an empty subquery keeps every row."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.base import BinderBase
from planner.binder.expressions import ExprBinder, col, is_aggregate
from planner.binder.filters import filtered
from planner.binder.join_filters import push_join_filters
from planner.binder.joins import and_all, columns_of, conjuncts, make_join
from planner.binder.scope import Relation, Scope
from planner.logical.fields import Field, unique_names
from planner.logical.joins import JoinKind
from planner.logical.operators import Calc, Node
from planner.problems import BindError


class SubqueryMixin(BinderBase):
    """Mixed into Binder (through SelectMixin)."""

    def bind_in_subquery(self, node: Node, binder: ExprBinder, in_node: exp.In, negated: bool) -> Node:
        query = in_node.args["query"]
        sub = self.bind_query(query.this if isinstance(query, exp.Subquery) else query)
        if len(sub.fields) != 1:
            raise BindError("An IN subquery must select exactly one column", in_node)
        left_expr = binder.bind(in_node.this)
        rname = unique_names([f.name for f in node.fields] + [sub.fields[0].name])[-1]
        right: Node = sub
        if rname != sub.fields[0].name:
            right = Calc((sub.fields[0].renamed(rname),), input=sub, projections=((rname, col(sub.fields[0].name)),))
        cond: exp.Expr = exp.EQ(this=left_expr, expression=col(rname))
        if negated:
            nullable = [e for e, f in ((left_expr, _nullable(binder, left_expr)), (col(rname), right.fields[0].nullable)) if f]
            for e in nullable:
                cond = exp.Or(this=cond, expression=exp.Is(this=e.copy(), expression=exp.Null()))
        return self._semi_or_anti(node, right, cond, negated, in_node)

    def bind_exists(self, node: Node, scope: Scope, exists: exp.Exists, negated: bool) -> Node:
        """``[NOT] EXISTS (SELECT ... FROM ... WHERE ...)``: the subquery's conditions on its own
        columns filter it; those naming the outer query's columns are the join's condition."""
        sub = exists.this
        if isinstance(sub, exp.Subquery):
            sub = sub.this
        if not isinstance(sub, exp.Select) or sub.args.get("from_") is None:
            raise BindError("EXISTS takes a SELECT ... FROM ... subquery", exists)
        for part, words in (("group", "GROUP BY"), ("having", "HAVING"), ("limit", "LIMIT"), ("qualify", "QUALIFY")):
            if sub.args.get(part) is not None:
                raise BindError(f"An EXISTS subquery with {words} is not supported; write it as a join", sub.args[part])
        if any(is_aggregate(n) for it in sub.expressions for n in it.walk()):
            raise BindError("An EXISTS subquery with aggregates is not supported; write it as a join", sub)
        where = sub.args.get("where")
        inner_sel = sub.copy()
        inner_sel.set("where", None)
        inner_node, inner_scope, _ = self.bind_from(inner_sel)
        local, correlated = [], []
        inner_binder = ExprBinder(inner_scope, self.user_function)
        for c in conjuncts(where.this) if where is not None else []:
            try:
                local.append(inner_binder.bind(c))
            except BindError:
                correlated.append(c)
        inner_node = filtered(inner_node, local)
        # the subquery's columns under names the outer input does not use, both visible to the condition
        taken = [f.name for f in node.fields]
        internal = unique_names(taken + [f.name for f in inner_node.fields])[len(taken):]
        rename = dict(zip(inner_node.field_names(), internal, strict=True))
        right: Node = inner_node
        if internal != inner_node.field_names():
            fields = tuple(f.renamed(rename[f.name]) for f in inner_node.fields)
            right = Calc(fields, input=inner_node, projections=tuple((rename[f.name], col(f.name)) for f in inner_node.fields))
        inner = Scope()
        for rel in inner_scope.relations:
            inner.add(Relation(rel.alias, rel.fields, [rename[n] for n in rel.internal]))
        both = CorrelatedScope(inner, scope)
        cond = and_all([ExprBinder(both, self.user_function).bind(c) for c in correlated]) if correlated else None
        # the join keeps of the subquery's rows only the columns its condition reads
        used = columns_of(cond) if cond is not None else set()
        kept = [f for f in right.fields if f.name in used] or list(right.fields[:1])
        if len(kept) < len(right.fields):
            right = Calc(tuple(kept), input=right, projections=tuple((f.name, col(f.name)) for f in kept))
        return self._semi_or_anti(node, right, cond, negated, exists)

    def _semi_or_anti(self, node: Node, right: Node, cond: exp.Expr | None, negated: bool, origin: exp.Expr) -> Node:
        fields = tuple(list(node.fields) + list(right.fields))
        join = push_join_filters(make_join(node, right, fields, JoinKind.ANTI if negated else JoinKind.SEMI, cond, self.windows, origin=origin))
        # semi/anti joins output only the left side
        return Calc(node.fields, input=join, projections=tuple((f.name, col(f.name)) for f in node.fields))


class CorrelatedScope(Scope):
    """The scope of an EXISTS subquery's correlated conditions: a name resolves in the subquery
    first, and in the outer query only if the subquery has no such column or relation (standard
    SQL: `price` is the subquery's own `price` even when the outer query has one too)."""

    def __init__(self, inner: Scope, outer: Scope) -> None:
        super().__init__(relations=[*inner.relations, *outer.relations], by_internal={**outer.by_internal, **inner.by_internal})
        self.inner, self.outer_query = inner, outer

    def resolve(self, column: exp.Column) -> tuple[str, Field, list[str]]:
        parts = [p.name for p in column.parts]
        qualified = len(parts) > 1 and any(self.inner.relation(".".join(parts[:k])) for k in range(1, len(parts)))
        named = any(f.name == parts[0] for rel in self.inner.relations for f in rel.fields)
        return (self.inner if qualified or named else self.outer_query).resolve(column)


def _nullable(binder: ExprBinder, e: exp.Expr) -> bool:
    if isinstance(e, exp.Column):
        f = binder.scope.by_internal.get(e.name)
        return f is None or f.nullable
    return not isinstance(e, exp.Literal)
