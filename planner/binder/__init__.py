"""Binding: a parsed query or INSERT plus the catalog becomes a logical plan.

Names are resolved (positioned errors with "did you mean"), types derived, views expanded, and
Flink's patterns recognized: window aggregates, interval/window/temporal/lookup joins,
deduplication and Top-N.
"""

from __future__ import annotations

import itertools

from sqlglot import exp

from catalog import Catalog, TableDef
from planner.binder.base import ViewDeps
from planner.binder.expressions import col
from planner.binder.relations import RelationsMixin
from planner.binder.select import SelectMixin
from planner.binder.set_ops import SetOpsMixin
from planner.dialect import nodes
from planner.logical import typing as T
from planner.logical.fields import Field
from planner.logical.ids import number
from planner.logical.operators import Calc, GroupAggregate, Node, Sink, Union
from planner.logical.pushdown import push_filters_into_scan_top, push_filters_into_scans
from planner.logical.rank import recognize_ranks
from planner.logical.simplify import simplify, simplify_top
from planner.logical.specs import WindowSpec
from planner.logical.window_argmax import rewrite_window_argmax
from planner.names import object_name
from planner.problems import BindError
from planner.udf import UserFunction


class Binder(RelationsMixin, SelectMixin, SetOpsMixin):
    def __init__(self, catalog: Catalog, udf_paths: tuple[str, ...] = (), run_user_code: bool = True):
        self.catalog = catalog
        self.udf_paths = udf_paths
        self.run_user_code = run_user_code
        self.window_ids = itertools.count(1)
        self.windows: dict[int, WindowSpec] = {}
        self.window_times: dict[int, Field] = {}  # the time attribute each window is on
        self.ctes: list[dict[str, Node]] = []
        self.view_stack: list[str] = []
        self.view_deps: list[ViewDeps] = []
        self.udfs: dict[str, UserFunction | None] = {}  # the catalog functions this statement called, by name

    # -- queries -------------------------------------------------------------------------------

    def bind_query(self, query: exp.Expr) -> Node:
        with_ = query.args.get("with_")
        if with_ is not None:
            frame: dict[str, Node] = {}
            self.ctes.append(frame)
            try:
                for cte in with_.expressions:
                    frame[cte.alias] = self._named(self.bind_query(cte.this), cte)
                return self._bind_query_body(query)
            finally:
                self.ctes.pop()
        return self._bind_query_body(query)

    def _named(self, node: Node, cte: exp.CTE) -> Node:
        alias = cte.args.get("alias")
        cols = [c.name for c in (alias.args.get("columns") or [])] if alias is not None else []
        if not cols:
            return node
        if len(cols) != len(node.fields):
            raise BindError(f"The CTE lists {len(cols)} columns but its query has {len(node.fields)}", cte)
        return Calc(tuple(f.renamed(n) for f, n in zip(node.fields, cols, strict=True)), input=node,
                    projections=tuple((n, col(f.name)) for n, f in zip(cols, node.fields, strict=True)))

    def _bind_query_body(self, query: exp.Expr) -> Node:
        if isinstance(query, exp.Subquery):
            return self.bind_query(query.this)
        if isinstance(query, exp.Select):
            self._register_windows()
            return self.bind_select(query)
        if isinstance(query, exp.Union):
            return self._union(query)
        if isinstance(query, (exp.Intersect, exp.Except)):
            return self.bind_set_difference(query)
        if isinstance(query, exp.Values):
            return self.bind_values(query).node
        raise BindError("Expected a query", query)

    def _register_windows(self) -> None:
        pass

    def _union(self, query: exp.Union) -> Node:
        branches: list[exp.Expr] = []

        def flatten(q: exp.Expr) -> None:
            if isinstance(q, exp.Union) and bool(q.args.get("distinct")) == bool(query.args.get("distinct")) and not q.args.get("with_"):
                flatten(q.this)
                flatten(q.expression)
            else:
                branches.append(q)

        flatten(query)
        children = [self.bind_query(b) for b in branches]
        width = len(children[0].fields)
        for b, c in zip(branches[1:], children[1:], strict=True):
            if len(c.fields) != width:
                raise BindError(f"UNION branches have {width} and {len(c.fields)} columns", b)
        fields = []
        for i, f in enumerate(children[0].fields):
            t = f.type
            time = f.time
            for c in children[1:]:
                other = c.fields[i]
                t = T.set_operation_type(t, other.type)
                if other.time != time:
                    time = None
            fields.append(Field(f.name, t, time))
        node: Node = Union(tuple(fields), children=tuple(children), all=not query.args.get("distinct"), origin=query)
        if query.args.get("distinct"):
            node = GroupAggregate(tuple(f.materialized() for f in fields), input=node, keys=tuple(f.name for f in fields), aggs=(), distinct_only=True, origin=query)
        # ORDER BY / LIMIT after the last branch are the whole UNION's (they were dropped)
        return self.order_limit(node, query, {}, len(fields))

    # -- statements ----------------------------------------------------------------------------

    def plan_query(self, query: exp.Expr) -> Node:
        """Bind a query and apply Flink's pattern recognition; the plan's nodes numbered."""
        return number([self._plan_query(query)])[0]

    def _plan_query(self, query: exp.Expr) -> Node:
        node = self.bind_query(query)
        simple = simplify(recognize_ranks(node, self.windows))
        return push_filters_into_scans(simplify(rewrite_window_argmax(simple, self.windows)))

    def plan_insert(self, insert: exp.Insert) -> Sink:
        sink = number([self._plan_insert(insert)])[0]
        assert isinstance(sink, Sink)
        return sink

    def _plan_insert(self, insert: exp.Insert) -> Sink:
        target = insert.this
        columns = None
        if isinstance(target, exp.Schema):
            columns = [c.name for c in target.expressions]
            target = target.this
        name = object_name(target)
        table = self.catalog.get_relation(name)
        if table is None:
            suggestion = self.catalog.suggest("table", name)
            raise BindError(f"Table `{name}` does not exist", target, f"did you mean `{suggestion}`?" if suggestion else "create it with CREATE TABLE first")
        if not isinstance(table, TableDef):
            raise BindError(f"`{name}` is a view; INSERT INTO needs a table", target)
        query = self._plan_query(insert.expression)
        writable = [c for c in table.columns if c.is_persisted]
        static = {}
        partition = target.args.get("partition") if isinstance(target, exp.Table) else None
        if isinstance(partition, exp.Partition):
            for eq in partition.expressions:
                static[eq.this.name] = eq.expression
        targets = [c.name for c in writable if c.name not in static] if columns is None else columns
        for c in targets:
            if table.column(c) is None:
                raise BindError(f"Column `{c}` is not a column of `{name}`", insert)
        if len(query.fields) != len(targets):
            raise BindError(
                f"INSERT INTO `{name}` gives {len(query.fields)} columns for {len(targets)} target columns "
                f"({', '.join(targets)})",
                insert.expression,
            )
        by_target = dict(zip(targets, query.fields, strict=True))
        projections: list[tuple[str, exp.Expr]] = []
        fields = []
        from planner.dialect import parse_type

        for c in writable:
            if c.name in by_target:
                src = by_target[c.name]
                projections.append((c.name, col(src.name)))
            elif c.name in static:
                projections.append((c.name, static[c.name]))
            else:
                projections.append((c.name, exp.Cast(this=exp.Null(), to=parse_type(c.type or "STRING"))))
            fields.append(Field(c.name, parse_type(c.type or "STRING"), by_target[c.name].time if c.name in by_target else None))
        # the query is simplified and its filters pushed already: only the new top can change
        shaped = push_filters_into_scan_top(simplify_top(Calc(tuple(fields), input=query, projections=tuple(projections), origin=insert)))
        return Sink(
            tuple(fields),
            input=shaped,
            table=table,
            overwrite=bool(insert.args.get("overwrite")),
            static_partition=tuple((k, v.sql()) for k, v in static.items()),
            origin=insert,
        )

    def plan_statement_set(self, stmt: nodes.StatementSet) -> list[Sink]:
        sinks = []
        for inner in stmt.expressions:
            if not isinstance(inner, exp.Insert):
                raise BindError("A statement set holds only INSERT statements", inner)
            sinks.append(self._plan_insert(inner))
        numbered = number(sinks)
        return [s for s in numbered if isinstance(s, Sink)]
