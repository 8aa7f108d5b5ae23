"""SELECT: FROM and joins (WHERE conjuncts pushed into inner joins, as Flink's optimizer does),
WHERE, aggregation (group, window TVF, legacy group window), projection, DISTINCT; OVER in over.py,
ORDER BY and LIMIT in order.py, subquery predicates in subqueries.py."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from planner.binder.expressions import (
    Collector,
    ExprBinder,
    col,
    is_aggregate,
    mark_user_aggregates,
    no_group_window_calls,
)
from planner.binder.filters import filtered, nests_query_or_aggregate
from planner.binder.join_filters import push_join_filters
from planner.binder.joins import and_all, columns_of, conjuncts, make_join
from planner.binder.named_windows import expand_named_windows
from planner.binder.names import LEGACY_WINDOW_FUNCS, LEGACY_WINDOW_PROPS
from planner.binder.order import OrderMixin
from planner.binder.over import OverMixin, agg_type
from planner.binder.relations import Item
from planner.binder.scalar import ScalarSubqueryMixin
from planner.binder.scope import Relation, Scope
from planner.binder.subqueries import SubqueryMixin
from planner.binder.windows import legacy_window, window_fields, window_kind
from planner.logical.fields import Field, WindowRole, unique_names
from planner.logical.joins import JoinKind
from planner.logical.operators import Calc, Correlate, GroupAggregate, Node, WindowAggregate
from planner.logical.specs import WindowSpec
from planner.logical.walk import find_all
from planner.problems import BindError

JOIN_KINDS = {"LEFT": JoinKind.LEFT, "RIGHT": JoinKind.RIGHT, "FULL": JoinKind.FULL}


def _output_name(item: exp.Expr, index: int) -> str:
    if isinstance(item, exp.Alias):
        return item.alias
    if isinstance(item, exp.Column):
        return item.name
    if isinstance(item, exp.Dot):
        return str(item.expression.name)
    return f"EXPR${index}"


class SelectMixin(SubqueryMixin, OrderMixin, OverMixin, ScalarSubqueryMixin):
    """Mixed into Binder."""

    # -- FROM ----------------------------------------------------------------------------------

    def bind_from(self, sel: exp.Select, ttl: dict[str, int] | None = None) -> tuple[Node, Scope, list[exp.Expr]]:
        """The joined input, its scope, and the WHERE conjuncts not pushed into joins."""
        from_ = sel.args.get("from_")
        where = sel.args.get("where")
        where_parts = conjuncts(where.this) if where is not None else []
        if from_ is None:
            values = self.bind_values(exp.Values(expressions=[exp.Tuple(expressions=[exp.Literal.number(0)])]))
            scope = Scope()
            return Calc((), input=values.node, projections=()), scope, where_parts

        first = self.bind_from_item(from_.this)
        match = sel.args.get("match")
        if match is not None:
            first = self.bind_match_recognize(first, match)
        joins = sel.args.get("joins") or []
        # WHERE conjuncts on one relation are applied before joining when every join is inner
        # (Flink's filter push-down); this is what the join's state then holds.
        push = bool(where_parts) and all(
            not (j.args.get("side") or "") and not isinstance(j.this, (exp.Unnest, exp.Lateral)) for j in joins
        )
        pushed: list[exp.Expr] = []
        scope = Scope()
        taken: list[str] = []
        node = self._rename_item(first, scope, taken)
        if push:
            node, where_parts = self._push_filters(node, scope.relations[-1], where_parts, pushed)
        inner_only = True
        for j in joins:
            target = j.this
            side = (j.args.get("side") or "").upper()
            if isinstance(target, (exp.Unnest, exp.Lateral)):
                outer = side == "LEFT"
                corr = self.bind_correlate(Item(node, None, list(node.fields)), scope, target, outer)
                new_fields = corr.fields
                internal = unique_names(taken + [f.name for f in new_fields])[len(taken):]
                taken.extend(internal)
                renamed = [f.renamed(n) for f, n in zip(new_fields, internal, strict=True)]
                assert isinstance(corr.node, Correlate)
                node = Correlate(tuple(list(node.fields) + renamed), input=node, call=corr.node.call, outer=outer, origin=target)
                scope.add(Relation(corr.alias, list(new_fields), internal))
                continue
            item = self.bind_from_item(target)
            n_before = len(node.fields)
            right = self._rename_item(item, scope, taken)
            if push:
                right, where_parts = self._push_filters(right, scope.relations[-1], where_parts, pushed)
            kind = JOIN_KINDS.get(side, JoinKind.INNER)
            if kind != JoinKind.INNER:
                inner_only = False
            binder = ExprBinder(scope, self.user_function)
            on = j.args.get("on")
            using = j.args.get("using")
            parts: list[exp.Expr] = []
            if on is not None:
                parts.extend(conjuncts(binder.bind(on)))
            if using:
                for ident in using:
                    lname = next((n for r in scope.relations[:-1] for f, n in zip(r.fields, r.internal, strict=True) if f.name == ident.name), None)
                    rel = scope.relations[-1]
                    rname = next((n for f, n in zip(rel.fields, rel.internal, strict=True) if f.name == ident.name), None)
                    if lname is None or rname is None:
                        raise BindError(f"USING column `{ident.name}` is not on both sides", ident)
                    parts.append(exp.EQ(this=col(lname), expression=col(rname)))
            if kind == JoinKind.INNER and inner_only:
                available = {f.name for f in node.fields} | {f.name for f in right.fields}
                left_names = {f.name for f in node.fields}
                keep = []
                for c in where_parts:
                    bound = self._try_bind(binder, c)
                    names = columns_of(bound) if bound is not None else None
                    if bound is not None and names and names <= available and not names <= left_names:
                        parts.append(bound)
                    else:
                        keep.append(c)
                where_parts = keep
            temporal = None
            if item.temporal is not None:
                t_expr = binder.bind(item.temporal.expression)
                if not isinstance(t_expr, exp.Column) or t_expr.name not in scope.by_internal:
                    raise BindError("FOR SYSTEM_TIME AS OF takes a time column of the left table", item.temporal)
                temporal = (t_expr.name, scope.by_internal[t_expr.name])
            fields = tuple(list(node.fields) + list(right.fields))
            node = push_join_filters(make_join(node, right, fields, kind, and_all(parts), self.windows, temporal, origin=j))
            if ttl:
                left_ttl = next((ttl[r.alias] for r in scope.relations[:-1] if r.alias in ttl), None)
                right_ttl = ttl.get(scope.relations[-1].alias or "")
                if left_ttl is not None or right_ttl is not None:
                    node = replace(node, state_ttl_ms=(left_ttl, right_ttl))
            assert len(node.fields) == n_before + len(right.fields)
            for f in node.fields:  # a regular join may have materialized time attributes
                scope.by_internal[f.name] = f
        # a name pushed down must also resolve the same way in the whole FROM (with one relation,
        # the whole FROM is the scope it was bound in)
        for c in pushed if joins else []:
            ExprBinder(scope, self.user_function).bind(c)
        return node, scope, where_parts

    def _push_filters(self, node: Node, rel: Relation, parts: list[exp.Expr], pushed: list[exp.Expr]) -> tuple[Node, list[exp.Expr]]:
        single = Scope()
        single.add(rel)
        binder = ExprBinder(single, self.user_function)
        keep, conds = [], []
        for c in parts:
            if nests_query_or_aggregate(c):
                keep.append(c)
                continue
            bound = self._try_bind(binder, c)
            if bound is None:
                keep.append(c)
            else:
                conds.append(bound)
                pushed.append(c)
        if not conds:
            return node, parts
        return filtered(node, conds), keep

    def _try_bind(self, binder: ExprBinder, c: exp.Expr) -> exp.Expr | None:
        try:
            return binder.bind(c)
        except BindError:
            return None

    def _rename_item(self, item: Item, scope: Scope, taken: list[str]) -> Node:
        internal = unique_names(taken + [f.name for f in item.fields])[len(taken):]
        taken.extend(internal)
        scope.add(Relation(item.alias, list(item.fields), internal))
        if internal == [f.name for f in item.fields]:
            return item.node
        renamed = tuple(f.renamed(n) for f, n in zip(item.fields, internal, strict=True))
        return Calc(renamed, input=item.node, projections=tuple((n, col(f.name)) for n, f in zip(internal, item.fields, strict=True)))

    # -- SELECT --------------------------------------------------------------------------------

    def _state_ttl_hint(self, sel: exp.Select) -> dict[str, int]:
        """STATE_TTL('alias' = '1 d', ...) of this SELECT's query hint."""
        from planner.durations import parse_duration

        out: dict[str, int] = {}
        hint = sel.args.get("hint")
        for call in hint.expressions if hint is not None else []:
            if isinstance(call, exp.Anonymous) and call.name.upper() == "STATE_TTL":
                for kv in call.expressions:
                    if isinstance(kv, exp.EQ):
                        try:
                            out[kv.this.name] = parse_duration(kv.expression.name)
                        except ValueError as err:
                            raise BindError(f"STATE_TTL: {err}", kv) from None
        return out

    def bind_select(self, sel: exp.Select) -> Node:
        expand_named_windows(sel)
        ttl = self._state_ttl_hint(sel)
        node, scope, where_parts = self.bind_from(sel, ttl)
        named = self._expand_star(sel, scope)
        node, replaced = self.bind_scalar_subqueries(node, scope, [*where_parts, *named])
        where_parts, items = replaced[: len(where_parts)], replaced[len(where_parts) :]
        binder = ExprBinder(scope, self.user_function)
        having = sel.args.get("having")
        mark_user_aggregates([*items, *([having] if having is not None else [])], binder)
        if where_parts:
            try:
                node = self._where(node, scope, binder, where_parts, sel)
            except BindError as err:
                raise _alias_hint(err, sel) from None
        group = sel.args.get("group")
        aggregate = bool(group) or any(
            is_aggregate(n) and not n.find_ancestor(exp.Window) for it in items for n in find_all(it, exp.Expr)
        ) or (having is not None)
        if sel.args.get("distinct") and not aggregate and _selects_window_bounds(items):
            # Flink plans SELECT DISTINCT over a window TVF's window_start and window_end as the
            # window aggregation it is (GROUP BY every item), released when the window ends
            return self.bind_select(_distinct_as_group_by(sel, items))
        if aggregate:
            node, binder, items_bound, having_bound = self._aggregate(node, scope, binder, sel, items)
            aliases = [r.alias for r in scope.relations if r.alias in ttl]
            if aliases and isinstance(node, GroupAggregate):
                node = replace(node, state_ttl_ms=(ttl[aliases[0]],))
        else:
            collector = Collector()
            items_bound = [binder.bind(it.this if isinstance(it, exp.Alias) else it, collector) for it in items]
            having_bound = None
            if collector.overs:
                node, binder = self._over(node, binder, collector)
        no_group_window_calls(items_bound + ([having_bound] if having_bound is not None else []))
        names = unique_names([_output_name(it, i) for i, it in enumerate(named)], sep="", first=0)
        hidden = {} if sel.args.get("distinct") else self.order_inputs(sel, names, binder)
        projections = [*zip(names, items_bound, strict=True), *((n, e) for n, e in hidden.values())]
        fields = tuple(binder.field_of(n, e) for n, e in projections)
        node = Calc(fields, input=node, projections=tuple(projections), condition=having_bound, origin=sel)
        if sel.args.get("distinct"):
            node = GroupAggregate(
                tuple(f.materialized() for f in node.fields),
                input=node,
                keys=tuple(node.field_names()),
                aggs=(),
                distinct_only=True,
                origin=sel,
            )
        node = self.order_limit(node, sel, {i: n for i, (n, _) in hidden.items()}, len(names))
        if hidden:  # the ORDER BY columns that are not in the SELECT list are projected away again
            kept = node.fields[: len(names)]
            node = Calc(kept, input=node, projections=tuple((f.name, col(f.name)) for f in kept))
        return node

    def _where(self, node: Node, scope: Scope, binder: ExprBinder, parts: list[exp.Expr], sel: exp.Select) -> Node:
        plain = []
        for c in parts:
            negated = isinstance(c, exp.Not) and isinstance(c.this, exp.In)
            in_node = c.this if negated else c
            if isinstance(in_node, exp.In) and in_node.args.get("query") is not None:
                node = self.bind_in_subquery(node, binder, in_node, negated)
                continue
            if isinstance(c, exp.Exists) or (isinstance(c, exp.Not) and isinstance(c.this, exp.Exists)):
                node = self.bind_exists(node, scope, c if isinstance(c, exp.Exists) else c.this, isinstance(c, exp.Not))
                continue
            bound = binder.bind(c)
            if any(is_aggregate(n) for n in c.walk()):
                raise BindError("Aggregate functions are not allowed in WHERE; use HAVING", c)
            plain.append(bound)
        no_group_window_calls(plain)
        return filtered(node, plain, origin=sel.args.get("where"))

    def _expand_star(self, sel: exp.Select, scope: Scope) -> list[exp.Expr]:
        out: list[exp.Expr] = []
        for it in sel.expressions:
            if isinstance(it, exp.Star):
                for rel in scope.relations:
                    out.extend(_qualified(rel, f.name) for f in rel.fields)
            elif isinstance(it, exp.Column) and isinstance(it.this, exp.Star):
                qualified = scope.relation(it.table)
                if qualified is None:
                    raise BindError(f"Unknown table `{it.table}` in `{it.sql()}`", it)
                out.extend(_qualified(qualified, f.name) for f in qualified.fields)
            else:
                out.append(it)
        if not out:
            raise BindError("SELECT needs at least one column", sel)
        return out

    # -- aggregation ---------------------------------------------------------------------------

    def _aggregate(
        self, node: Node, scope: Scope, binder: ExprBinder, sel: exp.Select, items: list[exp.Expr]
    ) -> tuple[Node, ExprBinder, list[exp.Expr], exp.Expr | None]:
        group = sel.args.get("group")
        group_exprs = list(group.expressions) if group else []
        window: WindowSpec | None = None
        legacy = False
        keys_bound: list[exp.Expr] = []
        for g in group_exprs:
            if isinstance(g, exp.Anonymous) and g.name.upper() in LEGACY_WINDOW_FUNCS:
                if window is not None:
                    raise BindError("A GROUP BY can have only one group window", g)
                time_arg = binder.bind(g.expressions[0]) if g.expressions else None
                if not isinstance(time_arg, exp.Column) or scope.by_internal[time_arg.name].time is None:
                    raise BindError(f"{g.name.upper()}(...) needs a time attribute as its first argument", g)
                window = legacy_window(next(self.window_ids), g, time_arg.name)
                self.windows[window.id] = window
                self.window_times[window.id] = scope.by_internal[time_arg.name]
                legacy = True
                continue
            keys_bound.append(binder.bind(g))
        if window is None:
            window = self._tvf_window(keys_bound, scope)
            if window is not None:
                keys_bound = [
                    k for k in keys_bound
                    if not (isinstance(k, exp.Column) and (f := scope.by_internal.get(k.name)) is not None
                            and f.window is not None and f.window.window_id == window.id)
                ]
        # complex group keys are computed first, by a projection below the aggregate
        pre_proj: list[tuple[str, exp.Expr]] = [(f.name, col(f.name)) for f in node.fields]
        key_names: list[str] = []
        for i, k in enumerate(keys_bound):
            if isinstance(k, exp.Column):
                key_names.append(k.name)
            else:
                name = f"$key{i}"
                pre_proj.append((name, k))
                key_names.append(name)
        if len(pre_proj) > len(node.fields):
            fields = tuple(list(node.fields) + [binder.field_of(n, e) for n, e in pre_proj[len(node.fields):]])
            node = Calc(fields, input=node, projections=tuple(pre_proj))
            for f in fields[len(scope.by_internal):]:
                scope.by_internal[f.name] = f
        collector = Collector()
        bound_items = [binder.bind(it.this if isinstance(it, exp.Alias) else it, collector) for it in items]
        having = sel.args.get("having")
        having_bound = binder.bind(having.this, collector) if having is not None else None
        if collector.overs:
            raise BindError("OVER window functions cannot be combined with GROUP BY in one SELECT", collector.overs[0].node)
        key_fields = [scope.by_internal[k].materialized() if window is None else scope.by_internal[k] for k in key_names]
        agg_fields = [Field(a.name, agg_type(binder, a)) for a in collector.aggs]
        # the post-aggregate expressions refer to keys and aggregate outputs
        replacements: list[tuple[exp.Expr, str]] = [(k, n) for k, n in zip(keys_bound, key_names, strict=True)]
        if window is not None:
            wfields = window_fields(window, self.window_times[window.id])
            wnames = _window_out_names(scope, window, legacy)
            out_fields = tuple(key_fields + [f.renamed(n) for f, n in zip(wfields, wnames, strict=True)] + agg_fields)
            agg_node: Node = WindowAggregate(out_fields, input=node, window=window, keys=tuple(key_names), aggs=tuple(collector.aggs), legacy=legacy, origin=group or sel)
            if legacy:
                bound_items = [_legacy_props(e, window, binder, wnames) for e in bound_items]
                having_bound = _legacy_props(having_bound, window, binder, wnames) if having_bound is not None else None
        else:
            out_fields = tuple(key_fields + agg_fields)
            agg_node = GroupAggregate(out_fields, input=node, keys=tuple(key_names), aggs=tuple(collector.aggs), origin=group or sel)
        allowed = {f.name for f in out_fields}
        bound_items = [_replace_keys(e, replacements, allowed) for e in bound_items]
        having_bound = _replace_keys(having_bound, replacements, allowed) if having_bound is not None else None
        for e, it in zip(bound_items + ([having_bound] if having_bound is not None else []), items + ([having] if having is not None else []), strict=True):
            for c in e.find_all(exp.Column):
                if c.name not in allowed:
                    raise BindError(
                        f"`{it.sql()}` is neither grouped nor aggregated",
                        it,
                        "add it to GROUP BY or wrap it in an aggregate such as MAX(...)",
                    )
        out_scope = Scope()
        out_scope.add(Relation(None, list(out_fields), [f.name for f in out_fields]))
        return agg_node, ExprBinder(out_scope, self.user_function), bound_items, having_bound

    def _tvf_window(self, keys: list[exp.Expr], scope: Scope) -> WindowSpec | None:
        roles: dict[int, set[WindowRole]] = {}
        for k in keys:
            if isinstance(k, exp.Column):
                f = scope.by_internal.get(k.name)
                if f is not None and f.window is not None:
                    roles.setdefault(f.window.window_id, set()).add(f.window.role)
        for wid, found in roles.items():
            if {WindowRole.START, WindowRole.END} <= found:
                return self.windows[wid]
        return None

    # -- OVER ----------------------------------------------------------------------------------



def _alias_hint(err: BindError, sel: exp.Select) -> BindError:
    """An unknown column in WHERE that is an alias of the same SELECT's list (Nexmark q6 does
    this): say why it is not visible there."""
    if isinstance(err.node, exp.Column):
        aliases = {it.alias for it in sel.expressions if isinstance(it, exp.Alias)}
        if err.node.name in aliases:
            err.hint = (
                f"`{err.node.name}` is defined in this SELECT's list, which is computed after WHERE; "
                "filter on it in an outer query: SELECT ... FROM (SELECT ..., <expr> AS "
                f"{err.node.name} FROM ...) WHERE {err.node.name} ..."
            )
    return err


def _qualified(rel: Relation, name: str) -> exp.Expr:
    ident = exp.to_identifier(name, quoted=True)
    if rel.alias:
        return exp.Column(this=ident, table=exp.to_identifier(rel.alias, quoted=True))
    return exp.Column(this=ident)


def _window_out_names(scope: Scope, window: WindowSpec, legacy: bool) -> list[str]:
    if legacy:
        return [f"$wstart{window.id}", f"$wend{window.id}", f"$wtime{window.id}"]
    names: dict[WindowRole, str] = {}
    for name, f in scope.by_internal.items():
        if f.window is not None and f.window.window_id == window.id:
            names.setdefault(f.window.role, name)
    return [names.get(WindowRole.START, "window_start"), names.get(WindowRole.END, "window_end"), names.get(WindowRole.TIME, "window_time")]


def _legacy_props(e: exp.Expr, window: WindowSpec, binder: ExprBinder, wnames: list[str]) -> exp.Expr:
    def repl(n: exp.Expr) -> exp.Expr:
        if isinstance(n, exp.Anonymous) and n.name.upper() in LEGACY_WINDOW_PROPS:
            kind, prop = n.name.upper().split("_", 1)
            if window_kind(kind) != window.kind:
                raise BindError(f"{n.name.upper()} does not match the GROUP BY window {window.kind.value}", n)
            idx = {"START": 0, "END": 1, "ROWTIME": 2, "PROCTIME": 2}[prop]
            return col(wnames[idx])
        return n

    return e.transform(repl, copy=False)


def _replace_keys(e: exp.Expr, replacements: list[tuple[exp.Expr, str]], allowed: set[str]) -> exp.Expr:
    def repl(n: exp.Expr) -> exp.Expr:
        if isinstance(n, exp.Column) and n.name in allowed:
            return n
        for key_expr, name in replacements:
            if n == key_expr:
                return col(name)
        return n

    return e.transform(repl, copy=False)


def _selects_window_bounds(items: list[exp.Expr]) -> bool:
    names = {(it.this if isinstance(it, exp.Alias) else it).name.lower() for it in items
             if isinstance(it.this if isinstance(it, exp.Alias) else it, exp.Column)}
    return {"window_start", "window_end"} <= names


def _distinct_as_group_by(sel: exp.Select, items: list[exp.Expr]) -> exp.Select:
    """``SELECT DISTINCT items ...`` as ``SELECT items ... GROUP BY items`` (stars expanded)."""
    out = sel.copy()
    out.set("distinct", None)
    out.set("expressions", [it.copy() for it in items])
    out.set("group", exp.Group(expressions=[(it.this if isinstance(it, exp.Alias) else it).copy() for it in items]))
    return out
