"""FROM items: tables (scans with computed columns and watermarks), views, CTEs, subqueries,
window table functions, VALUES, UNNEST / LATERAL TABLE and MATCH_RECOGNIZE."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sqlglot
from sqlglot import exp

from catalog import Column, TableDef, ViewDef, Watermark
from catalog.model import CatalogObject
from planner.binder.base import BinderBase, ViewDeps
from planner.binder.expressions import ExprBinder, col
from planner.binder.intervals import interval_ms, is_interval
from planner.binder.match_recognize import bind_match_recognize
from planner.binder.scope import Relation, Scope
from planner.binder.types import type_of
from planner.binder.windows import spec_from_tvf, tvf_arguments, window_fields
from planner.dialect import Flink, nodes, parse_type
from planner.logical import typing as T
from planner.logical.copying import copy_expr
from planner.logical.fields import Field, TimeKind
from planner.logical.operators import Calc, ChangelogNormalize, Correlate, Node, Scan, Values, WindowTVF
from planner.names import object_name
from planner.problems import BindError

MAX_VIEW_DEPTH = 32


# Views and computed columns are stored as SQL text and bound again on every use: parse each text
# once and bind a copy (binding attaches nodes to the plan; the cached tree stays untouched).
@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> exp.Expr:
    return sqlglot.parse_one(text, read=Flink)


def parse_cached(text: str) -> exp.Expr:
    return copy_expr(_parsed(text))


# bound plans of views: (name, query, column names) -> (relations read with their definitions, plan)
_VIEW_PLANS: dict[tuple[str, str, tuple[str, ...]], tuple[tuple[tuple[str, CatalogObject | None], ...], Node]] = {}


@dataclass
class Item:
    node: Node
    alias: str | None
    fields: list[Field]  # as the user sees them
    temporal: exp.Expr | None = None  # FOR SYSTEM_TIME AS OF <expr> (unbound)
    origin: exp.Expr | None = None


def relation_for(item: Item) -> Relation:
    return Relation(item.alias, list(item.fields), [f.name for f in item.fields])


def watermark_delay(expr: exp.Expr, column: str) -> int | None:
    """ms of `column - INTERVAL ..` (0 for the column itself); None for other strategies."""
    if isinstance(expr, exp.Paren):
        return watermark_delay(expr.this, column)
    if isinstance(expr, exp.Column) and expr.name == column.rsplit(".", maxsplit=1)[-1].strip("`"):
        return 0
    if isinstance(expr, exp.Sub) and is_interval(expr.expression):
        inner = watermark_delay(expr.this, column)
        return None if inner is None else inner + interval_ms(expr.expression)
    if isinstance(expr, exp.Add) and is_interval(expr.expression):
        inner = watermark_delay(expr.this, column)
        return None if inner is None else inner - interval_ms(expr.expression)
    return None


class RelationsMixin(BinderBase):
    """Mixed into Binder."""

    def bind_from_item(self, node: exp.Expr, scope_outer: Scope | None = None) -> Item:
        alias_node = node.args.get("alias")
        alias = alias_node.name if alias_node is not None and alias_node.name else None
        col_aliases = [c.name for c in alias_node.args.get("columns") or []] if alias_node is not None else []

        if isinstance(node, exp.Table) and isinstance(node.this, nodes.TableFunction):
            item = self.bind_table_function(node.this)
        elif isinstance(node, exp.Table):
            item = self.bind_table(node)
        elif isinstance(node, exp.Subquery):
            sub = self.bind_query(node.this)
            item = Item(sub, None, list(sub.fields), origin=node)
        elif isinstance(node, exp.Values):
            item = self.bind_values(node)
        elif isinstance(node, (exp.Unnest, exp.Lateral)):
            raise BindError("UNNEST / LATERAL TABLE must follow another table in FROM", node)
        else:
            raise BindError(f"Unsupported FROM item `{node.sql(dialect=Flink)[:40]}`", node)

        if alias is not None:
            item.alias = alias
        if col_aliases:
            if len(col_aliases) != len(item.fields):
                raise BindError(
                    f"The alias lists {len(col_aliases)} columns but the relation has {len(item.fields)}",
                    alias_node,
                )
            renamed = [f.renamed(n) for f, n in zip(item.fields, col_aliases, strict=True)]
            item.node = Calc(
                tuple(renamed),
                input=item.node,
                projections=tuple((n, col(f.name)) for n, f in zip(col_aliases, item.fields, strict=True)),
                origin=node,
            )
            item.fields = renamed
        return item

    # -- tables, views, CTEs -------------------------------------------------------------------

    def bind_table(self, node: exp.Table) -> Item:
        if isinstance(node.this, exp.Parameter):
            raise BindError(
                f"Undefined variable ${{{node.this.name}}}",
                node,
                f"define it: --define {node.this.name}=<table name>",
            )
        name = object_name(node)
        for ctes in reversed(self.ctes):
            if name in ctes:
                cte = ctes[name]
                return Item(cte, name, list(cte.fields), temporal=node.args.get("version"), origin=node)
        obj = self.catalog.get_relation(name)
        for frame in self.view_deps:
            frame.append((name, obj))
        if obj is None:
            suggestion = self.catalog.suggest("table", name)
            hint = f"did you mean `{suggestion}`?" if suggestion else "create it first with CREATE TABLE"
            raise BindError(f"Table or view `{name}` does not exist", node, hint)
        temporal = node.args.get("version")
        if isinstance(obj, ViewDef):
            view_node = self.bind_view(obj, node)
            return Item(view_node, name, list(view_node.fields), temporal=temporal, origin=node)
        scan = self.scan(obj, node)
        if scan.upsert_source:
            # the records of an upsert source become a changelog here, as Flink plans it
            normalized = ChangelogNormalize(scan.fields, input=scan, keys=obj.primary_key, origin=node)
            return Item(normalized, name, list(scan.fields), temporal=temporal, origin=node)
        return Item(scan, name, list(scan.fields), temporal=temporal, origin=node)

    def bind_view(self, view: ViewDef, origin: exp.Expr) -> Node:
        """The view's query, bound. A view is bound again on every use; the bound plan of a view
        without windows or functions is reused while every relation it read is unchanged (plan
        nodes are immutable, and a plan may already share a subtree, as a CTE used twice does)."""
        key = (view.name, view.query, tuple(view.column_names or ()))
        frames = self.view_deps
        cacheable = not self.ctes
        if cacheable and key in _VIEW_PLANS:
            read, cached = _VIEW_PLANS[key]
            if all(self.catalog.get_relation(n) == d for n, d in read):
                for frame in frames:
                    frame.extend(read)
                return cached
        if view.name in self.view_stack or len(self.view_stack) > MAX_VIEW_DEPTH:
            raise BindError(f"View `{view.name}` refers to itself", origin)
        self.view_stack.append(view.name)
        deps: ViewDeps = []
        self.view_deps = [*frames, deps]
        windows = len(self.windows)
        try:
            query = parse_cached(view.query)
            node = self.bind_query(query)
        except BindError as err:
            raise BindError(f"View `{view.name}` is invalid: {err.message}", origin, err.hint) from None
        finally:
            self.view_stack.pop()
            self.view_deps = frames
        if view.column_names:
            fields = tuple(f.renamed(n) for f, n in zip(node.fields, view.column_names, strict=True))
            node = Calc(fields, input=node, projections=tuple((n, col(f.name)) for n, f in zip(view.column_names, node.fields, strict=True)))
        # windows are registered per binder (ids, window joins); functions may change: bind again
        if cacheable and len(self.windows) == windows and not query.find(exp.Anonymous):
            if len(_VIEW_PLANS) >= 256:
                _VIEW_PLANS.pop(next(iter(_VIEW_PLANS)))
            _VIEW_PLANS[key] = (tuple(deps), node)
        return node

    def scan(self, table: TableDef, origin: exp.Expr) -> Scan:
        try:
            fields, computed, wm_field, delay, wm_expr = _table_shape(table.name, table.columns, table.watermark)
        except BindError as err:
            raise BindError(err.message, origin, err.hint) from None
        hints = []
        for hint in origin.args.get("hints") or []:
            for call in hint.expressions:
                if isinstance(call, exp.Anonymous) and call.name.upper() == "OPTIONS":
                    for kv in call.expressions:
                        if isinstance(kv, exp.EQ):
                            hints.append((kv.this.name, kv.expression.name))
        return Scan(
            fields,
            table=table,
            alias=None,
            computed=computed,
            watermark_field=wm_field,
            watermark_delay_ms=delay,
            watermark_expr=wm_expr,
            hints=tuple(hints),
            origin=origin,
        )

    # -- table functions, values ---------------------------------------------------------------

    def bind_table_function(self, node: nodes.TableFunction) -> Item:
        call = node.this
        kind, args = tvf_arguments(call)
        data = args["DATA"]
        assert isinstance(data, nodes.TableArgument)  # tvf_arguments checked it
        source = self.bind_from_item(data.this)
        scope = Scope()
        scope.add(relation_for(source))
        descriptor = args["TIMECOL"]
        assert isinstance(descriptor, nodes.Descriptor)  # tvf_arguments checked it
        if len(descriptor.expressions) != 1:
            raise BindError("DESCRIPTOR takes exactly one time column", descriptor)
        time_name, time_field, _ = scope.resolve(descriptor.expressions[0])
        if time_field.time is None:
            raise BindError(
                f"The window's time column `{time_name}` is not a time attribute",
                descriptor,
                "declare WATERMARK FOR it in the table's DDL (event time), or use a PROCTIME() column",
            )
        partition: tuple[str, ...] = ()
        if data.args.get("partition_by"):
            if kind.value != "SESSION":
                raise BindError("Only SESSION windows take PARTITION BY", data)
            partition = tuple(scope.resolve(p)[0] for p in data.args["partition_by"])
        spec = spec_from_tvf(next(self.window_ids), kind, args, time_name, partition)
        self.windows[spec.id] = spec
        self.window_times[spec.id] = time_field
        extra = window_fields(spec, time_field)
        taken = {f.name for f in source.fields}
        for f in extra:
            if f.name in taken:
                raise BindError(f"The input of a window function already has a column `{f.name}`", call)
        # the input's columns pass through unchanged (its time attribute stays one: a window
        # deduplication orders by it), plus window_start, window_end and window_time
        tvf = WindowTVF(tuple(list(source.fields) + extra), input=source.node, window=spec, origin=call)
        return Item(tvf, None, list(tvf.fields), origin=call)

    def bind_values(self, node: exp.Values) -> Item:
        rows = []
        for tup in node.expressions:
            row = tup.expressions if isinstance(tup, exp.Tuple) else [tup]
            rows.append(tuple(ExprBinder(Scope()).bind(v) for v in row))
        if not rows:
            raise BindError("VALUES needs at least one row", node)
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise BindError("All VALUES rows need the same number of columns", node)
        fields = []
        for i in range(width):
            t = T.UNKNOWN
            for r in rows:
                rt = type_of(r[i], {})
                t = rt if T.is_type(t, exp.DType.UNKNOWN, exp.DType.NULL) else T.wider(t, rt)
            fields.append(Field(f"EXPR${i}", t))
        values = Values(tuple(fields), rows=tuple(rows), origin=node)
        return Item(values, None, fields, origin=node)

    def bind_correlate(self, left: Item, left_scope: Scope, node: exp.Expr, outer: bool) -> Item:
        """CROSS JOIN UNNEST(arr) AS t(v) / LATERAL TABLE(f(x)) AS T(a, b) after ``left``."""
        alias_node = node.args.get("alias")
        binder = ExprBinder(left_scope, self.user_function)
        if isinstance(node, exp.Unnest):
            arrays = [binder.bind(e) for e in node.expressions]
            names = [c.name for c in alias_node.args.get("columns") or []] if alias_node else []
            new_fields: list[Field] = []
            for i, arr in enumerate(arrays):
                t = binder.type_of(arr)
                elem = t.expressions[0] if T.is_type(t, exp.DType.ARRAY) and t.expressions else T.UNKNOWN
                if T.is_type(elem, exp.DType.STRUCT):
                    for _j, member in enumerate(elem.expressions):
                        nm = names[len(new_fields)] if len(new_fields) < len(names) else member.name
                        new_fields.append(Field(nm, member.args.get("kind") or T.UNKNOWN))
                else:
                    nm = names[i] if i < len(names) else f"EXPR${i}"
                    new_fields.append(Field(nm, elem))
            call: exp.Expr = exp.Unnest(expressions=arrays)
        else:
            fn = node.this.this if isinstance(node.this, nodes.TableFunction) else node.this
            call, row = self._table_function_call(binder, fn)
            names = [c.name for c in alias_node.args.get("columns") or []] if alias_node else []
            types = [m.args.get("kind") or T.UNKNOWN for m in row.expressions] if row is not None else []
            if not names:
                if row is None:
                    raise BindError("Name the columns of a table function: LATERAL TABLE(f(x)) AS T(a, b)", node)
                names = [m.name for m in row.expressions]
            elif row is not None and len(names) != len(types):
                raise BindError(
                    f"The alias names {len(names)} column{'s' if len(names) != 1 else ''} but `{fn.name}` returns "
                    f"rows of {len(types)}: {row.sql(dialect=Flink)}",
                    alias_node,
                )
            new_fields = [Field(n, types[i] if i < len(types) else T.UNKNOWN) for i, n in enumerate(names)]
        alias = alias_node.name if alias_node is not None and alias_node.name else None
        fields = tuple(list(left.node.fields) + new_fields)
        corr = Correlate(fields, input=left.node, call=call, outer=outer, origin=node)
        return Item(corr, alias, new_fields, origin=node)

    def _table_function_call(self, binder: ExprBinder, fn: exp.Expr) -> tuple[exp.Expr, exp.DataType | None]:
        """LATERAL TABLE's call bound, with the ROW type of the rows it makes (None for a JVM
        function, which is not loaded: the checker refuses it)."""
        if not isinstance(fn, exp.Anonymous):
            raise BindError("LATERAL TABLE takes a call of a table function: LATERAL TABLE(f(x))", fn)
        udf = binder.user_function(fn)
        if udf is None:
            raise BindError(f"No table function named `{fn.name}`", fn, "CREATE FUNCTION it first (a Python generator)")
        sig = udf.signature
        if sig is not None and not sig.table:
            raise BindError(
                f"`{fn.name}` is a scalar function; LATERAL TABLE calls a table function (a Python generator)", fn
            )
        args = [binder.bind(a) for a in fn.expressions]
        call = exp.Anonymous(this=fn.name, expressions=args)
        call.meta.update(fn.meta)
        call.meta["user_function"] = udf
        return call, (parse_type(sig.result) if sig is not None else None)

    def bind_match_recognize(self, source: Item, node: exp.MatchRecognize) -> Item:
        mr, fields = bind_match_recognize(relation_for(source), source.node, node)
        alias_node = node.args.get("alias")
        return Item(mr, alias_node.name if alias_node is not None else None, fields, origin=node)


# a table's fields, bound computed columns, watermark column, delay (ms) and watermark expression
TableShape = tuple[tuple[Field, ...], tuple[tuple[str, exp.Expr], ...], str | None, int | None, exp.Expr | None]


@functools.lru_cache(maxsize=512)
def _table_shape(name: str, columns: tuple[Column, ...], watermark: Watermark | None) -> TableShape:
    """Fields, bound computed columns and watermark of a table definition. Every reference to a
    table scans it; the definition decides all of this, so it is worked out once per definition.
    The results are shared between plans and never modified."""
    table = TableDef(name, columns, watermark)
    base: list[Field] = []
    for c in table.columns:
        if c.kind != "computed":
            base.append(Field(c.name, parse_type(c.type or "STRING"), None, c.nullable))
    scope = Scope()
    scope.add(Relation(None, base, [f.name for f in base]))
    binder = ExprBinder(scope)
    computed: list[tuple[str, exp.Expr]] = []
    fields: list[Field] = []
    for c in table.columns:
        if c.kind == "computed":
            tree = parse_cached(f"SELECT {c.expr}").expressions[0]
            try:
                bound = binder.bind(tree)
            except BindError as err:
                raise BindError(f"Computed column `{c.name}` of `{table.name}`: {err.message}", None, err.hint) from None
            computed.append((c.name, bound))
            fields.append(binder.field_of(c.name, bound))
        else:
            fields.append(next(f for f in base if f.name == c.name))
    wm_field = delay = wm_expr = None
    if table.watermark is not None:
        wm_field = table.watermark.column.strip("`")
        wm_tree = parse_cached(f"SELECT {table.watermark.expr}").expressions[0]
        delay = watermark_delay(wm_tree, wm_field)
        all_scope = Scope()
        all_scope.add(Relation(None, fields, [f.name for f in fields]))
        wm_expr = ExprBinder(all_scope).bind(wm_tree)
        fields = [
            Field(f.name, f.type, TimeKind.ROWTIME, f.nullable) if f.name == wm_field else f for f in fields
        ]
        if not any(f.name == wm_field for f in fields):
            raise BindError(f"Watermark column `{wm_field}` of `{table.name}` is not a top-level column", None)
    return tuple(fields), tuple(computed), wm_field, delay, wm_expr

