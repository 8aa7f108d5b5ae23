"""Binding scalar expressions: resolve column references to input fields, pull out aggregate and
window-function calls (names in planner.binder.names, result types in planner.binder.types)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp

from planner.binder import structured
from planner.binder.json_returning import check_json_returning
from planner.binder.names import AGG_NAMES, LEGACY_WINDOW_FUNCS, LEGACY_WINDOW_PROPS, RANK_NAMES, agg_func, func_name
from planner.binder.scope import Scope
from planner.binder.types import type_of
from planner.dialect import type_sql
from planner.dialect.json_syntax import JsonArrayAgg, JsonQuery, JsonValue
from planner.functions import callable_without_create, flink_spelling, suggest_function
from planner.logical import typing as T
from planner.logical.copying import copy_expr
from planner.logical.fields import Field, TimeKind
from planner.logical.specs import AggCall, AggFunc
from planner.logical.walk import find_all
from planner.problems import BindError
from planner.udf import UdfError, UserFunction

FunctionLookup = Callable[[str], UserFunction | None]

USER_AGGREGATE = "user_aggregate"  # the meta key of a call of a Python aggregate function


def is_aggregate(node: exp.Expr) -> bool:
    if isinstance(node, (exp.Filter, exp.IgnoreNulls, exp.RespectNulls)):
        return is_aggregate(node.this)
    if isinstance(node, exp.Window):
        return False
    if isinstance(node, exp.AggFunc):
        return True
    return isinstance(node, exp.Anonymous) and (node.name.upper() in AGG_NAMES or USER_AGGREGATE in node.meta)


def _nulls_clause(call: exp.Expr, node: exp.Expr) -> tuple[exp.Expr, str]:
    """The aggregate call inside ``call`` and its NULL clause (``AggCall.nulls``)."""
    if isinstance(call, (exp.IgnoreNulls, exp.RespectNulls)):
        nulls = "IGNORE NULLS" if isinstance(call, exp.IgnoreNulls) else "RESPECT NULLS"
        if func_name(call.this) != "ARRAY_AGG":
            raise BindError(f"{nulls} is not allowed in {func_name(call.this)} (Flink takes it in ARRAY_AGG)", node)
        return call.this, nulls
    if isinstance(call, JsonArrayAgg):
        clause = call.args.get("on_null")
        return call, f"{clause} ON NULL" if clause else ""
    if isinstance(call, exp.JSONObjectAgg):
        return call, str(call.args.get("null_handling") or "")
    return call, ""


def _operands(call: exp.Expr) -> list[exp.Expr]:
    """An aggregate call's operands as written (JSON_OBJECTAGG's KEY k VALUE v: k, v)."""
    if isinstance(call, exp.Anonymous):
        return list(call.expressions)
    if isinstance(call, exp.JSONObjectAgg):
        return [x for kv in call.expressions for x in (kv.this, kv.expression)]
    raw = [call.this] if isinstance(call.this, exp.Expr) else []
    return raw + [v for k, v in call.args.items() if k != "this" and isinstance(v, exp.Expr)]


def mark_user_aggregates(exprs: list[exp.Expr], binder: ExprBinder) -> None:
    """Flag each call of a Python aggregate function (the catalog says which names are), so that
    ``is_aggregate`` knows it as it knows COUNT; errors at the call."""
    for e in exprs:
        for call in find_all(e, exp.Anonymous):
            udf = binder.user_function(call)
            if udf is not None and udf.signature is not None and udf.signature.aggregate:
                call.meta[USER_AGGREGATE] = udf


def no_group_window_calls(exprs: list[exp.Expr]) -> None:
    """TUMBLE(...), TUMBLE_START(...) and the like belong to a GROUP BY group window; one left
    anywhere else is an error, as in Flink."""
    for e in exprs:
        for call in find_all(e, exp.Anonymous):
            name = call.name.upper()
            if name in LEGACY_WINDOW_PROPS or name in LEGACY_WINDOW_FUNCS:
                window = name.split("_")[0]
                raise BindError(f"{name}(...) is only allowed with GROUP BY {window}(...)", call)


def col(name: str) -> exp.Column:
    # what exp.column(exp.to_identifier(name, quoted=True)) builds, without its argument handling:
    # binding makes one for every column reference
    return exp.Column(this=exp.Identifier(this=name, quoted=True), table=None, db=None, catalog=None)


@dataclass
class OverCall:
    name: str
    func: AggFunc
    args: tuple[exp.Expr, ...]
    partition: tuple[exp.Expr, ...]
    order: tuple[tuple[exp.Expr, bool], ...]
    frame: exp.Expr | None  # sqlglot WindowSpec
    node: exp.Expr
    distinct: bool = False
    udf: UserFunction | None = None  # a Python aggregate function's
    nulls: str = ""  # AggCall.nulls


@dataclass
class Collector:
    """Aggregate / window-function calls found while binding select items."""

    aggs: list[AggCall] = field(default_factory=list)
    agg_nodes: list[exp.Expr] = field(default_factory=list)
    overs: list[OverCall] = field(default_factory=list)
    counter: itertools.count[int] = field(default_factory=lambda: itertools.count())

    def new_name(self, prefix: str) -> str:
        return f"${prefix}{next(self.counter)}"


LONG_MAX = 2**63 - 1


def check_numeric_literal(node: exp.Literal) -> None:
    """Flink's validator refuses an exact numeric literal whose digits do not fit in a BIGINT
    (``99999999999999999999``, a DECIMAL literal of more than 19 digits)."""
    text = node.this
    if "e" in text.lower():
        return  # an approximate (DOUBLE) literal
    digits = text.replace(".", "").lstrip("-").lstrip("0") or "0"
    if len(digits) > 18 and int(digits) > LONG_MAX + 1:  # -9223372036854775808 is a BIGINT
        raise BindError(f"Numeric literal '{text}' out of range", node, "write it as a DOUBLE (1e20) or a string CAST to DECIMAL")


_DATE = r"(\d{4})-(\d{1,2})-(\d{1,2})"
_TIME = r"(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.\d{1,9})?)?"
_LITERAL_FORMS = {
    exp.DType.DATE: (f"{_DATE}", "yyyy-MM-dd"),
    exp.DType.TIME: (f"{_TIME}", "HH:mm:ss"),
    exp.DType.TIMESTAMP: (f"{_DATE} {_TIME}", "yyyy-MM-dd HH:mm:ss"),
}


def check_typed_literal(node: exp.Cast) -> None:
    """DATE, TIME and TIMESTAMP literals must be valid values in Flink's format (its validator
    refuses ``TIMESTAMP '2020-13-45 00:00:00'``; a CAST of the same string fails only at run time)."""
    import datetime
    import re

    kind = node.to.this
    pattern, shown = _LITERAL_FORMS[kind]
    text = node.this.name.strip()
    m = re.fullmatch(pattern, text)
    ok = m is not None
    if ok:
        assert m is not None
        parts = [int(g) if g is not None else 0 for g in m.groups()]
        try:
            if kind != exp.DType.TIME:
                datetime.date(*parts[:3])
            if kind != exp.DType.DATE:
                h, mi, sec = parts[-3:]
                ok = h < 24 and mi < 60 and sec < 60
        except ValueError:
            ok = False
    if not ok:
        raise BindError(f"Illegal {kind.value} literal '{text}': not in format '{shown}'", node)


class ExprBinder:
    def __init__(self, scope: Scope, functions: FunctionLookup | None = None):
        self.scope = scope
        self.functions = functions  # catalog function lookup: name -> UserFunction | None

    # -- binding -------------------------------------------------------------------------------

    def bind(self, node: exp.Expr, collector: Collector | None = None) -> exp.Expr:
        return self._bind(copy_expr(node), collector)

    def _bind(self, node: exp.Expr, collector: Collector | None) -> exp.Expr:
        if isinstance(node, exp.Column):
            return self._column(node)
        if isinstance(node, exp.Literal) and not node.is_string:
            check_numeric_literal(node)
        elif isinstance(node, exp.Cast) and node.meta.get("typed_literal"):
            check_typed_literal(node)
        if isinstance(node, exp.Window):
            return self._window(node, collector)
        if is_aggregate(node):
            return self._aggregate(node, collector)
        if isinstance(node, (exp.Subquery, exp.Select)) and not isinstance(node.parent, exp.In):
            raise BindError("A subquery is allowed here only as a scalar value in the select list or WHERE", node)
        if isinstance(node, exp.Star):
            raise BindError("`*` is only allowed in the select list or COUNT(*)", node)
        if isinstance(node, (exp.IgnoreNulls, exp.RespectNulls)):  # after no aggregate call
            words = "IGNORE NULLS" if isinstance(node, exp.IgnoreNulls) else "RESPECT NULLS"
            raise BindError(f"Cannot specify {words} following `{func_name(node.this) or node.this.sql()}` (Flink takes it after ARRAY_AGG)", node)
        if isinstance(node, exp.Anonymous):
            self._check_function(node)
        elif isinstance(node, (JsonValue, JsonQuery)):
            check_json_returning(node)
        # the arguments as written, for positions (a bound column has none)
        written = list(node.expressions) if isinstance(node, exp.Anonymous) else [node.this]
        for key, value in list(node.args.items()):
            if isinstance(value, exp.Expr):
                node.set(key, self._bind(value, collector))
            elif isinstance(value, list):
                node.set(key, [self._bind(v, collector) if isinstance(v, exp.Expr) else v for v in value])
        if isinstance(node, (exp.Cast, exp.Dot)):
            self._check_variant(node, written[0])
        elif isinstance(node, exp.Anonymous) and node.name.upper() in structured.NAMES:
            structured.check(node, self.type_of, written)
        return node

    def _check_variant(self, node: exp.Cast | exp.Dot, written: exp.Expr) -> None:
        """What Flink 2.3's validator refuses of a VARIANT: any CAST from or to it, and a field
        read with a dot (a VARIANT's members are read with subscripts)."""
        source = self.type_of(node.this)
        if isinstance(node, exp.Dot):
            if T.is_type(source, exp.DType.VARIANT):
                raise BindError(f"A VARIANT has no field `{node.expression.name}`", written, f"read a member with a subscript: v['{node.expression.name}']")
            return
        if T.is_type(source, exp.DType.VARIANT) or T.is_type(node.to, exp.DType.VARIANT):
            raise BindError(
                f"Cast function cannot convert value of type {type_sql(source)} to type {type_sql(node.to)}",
                written,
                "JSON_STRING(v) gives a VARIANT's JSON text; PARSE_JSON(s) reads JSON text as a VARIANT",
            )

    def _column(self, node: exp.Column) -> exp.Expr:
        if not node.table and node.name.upper() in ("TRUE", "FALSE", "NULL"):
            return node
        internal, _, nested = self.scope.resolve(node)
        out: exp.Expr = col(internal)
        for name in nested:
            out = exp.Dot(this=out, expression=exp.to_identifier(name))
        return out

    def _aggregate(self, node: exp.Expr, collector: Collector | None) -> exp.Expr:
        if collector is None:
            raise BindError(
                f"Aggregate function {func_name(node.this if isinstance(node, exp.Filter) else node)} "
                "is not allowed here",
                node,
                "aggregates belong in the select list or HAVING of a grouped query",
            )
        filter_expr = None
        call = node
        if isinstance(node, exp.Filter):
            call = node.this
            where = node.expression
            filter_expr = self._bind(where.this if isinstance(where, exp.Where) else where, None)
        call, nulls = _nulls_clause(call, node)
        name = func_name(call)
        udf = call.meta.get(USER_AGGREGATE)
        distinct = False
        star = False
        args: list[exp.Expr] = []
        for a in _operands(call):
            if isinstance(a, exp.Distinct):
                distinct = True
                args.extend(self._bind(x, None) for x in a.expressions)
            elif isinstance(a, exp.Star):
                star = True
            else:
                if any(is_aggregate(n) for n in a.walk()):
                    raise BindError("Aggregate functions cannot be nested", a)
                args.append(self._bind(a, None))
        if name == "COUNT" and not args and udf is None:
            star = True
        agg = AggCall(
            name=collector.new_name("agg"),
            func=agg_func(name, call) if udf is None else AggFunc.USER_DEFINED,
            args=tuple(args),
            distinct=distinct,
            filter=filter_expr,
            star=star,
            udf=udf,
            call=call if udf is not None else None,
            nulls=nulls,
        )
        for existing, _existing_node in zip(collector.aggs, collector.agg_nodes, strict=True):
            if (existing.func, existing.args, existing.distinct, existing.filter, existing.star, existing.udf, existing.nulls) == (
                agg.func, agg.args, agg.distinct, agg.filter, agg.star, agg.udf, agg.nulls
            ):
                return col(existing.name)
        collector.aggs.append(agg)
        collector.agg_nodes.append(node)
        return col(agg.name)

    def _window(self, node: exp.Window, collector: Collector | None) -> exp.Expr:
        if collector is None:
            raise BindError("Window functions (OVER) are only allowed in the select list", node)
        func, nulls = _nulls_clause(node.this, node)
        name = func_name(func)
        if isinstance(func, (JsonArrayAgg, exp.JSONObjectAgg)):
            raise BindError(f"{name} takes no OVER clause (Flink's parser refuses it)", func, "use it in GROUP BY or a window aggregation")
        operands = _operands(func) if isinstance(func, (exp.Anonymous, exp.JSONObjectAgg)) else [v for v in [func.this] if isinstance(v, exp.Expr)]
        if isinstance(func, (exp.Lag, exp.Lead)):  # the value, then the offset and the default
            operands += [v for v in (func.args.get("offset"), func.args.get("default")) if isinstance(v, exp.Expr)]
            if isinstance(func.args.get("default"), exp.Null):  # Calcite's rule: the default needs a type
                raise BindError("Illegal use of 'NULL'", node, "write CAST(NULL AS <the value's type>)")
        distinct = len(operands) == 1 and isinstance(operands[0], exp.Distinct)  # COUNT(DISTINCT x) OVER (...)
        if distinct:
            operands = list(operands[0].expressions)
        # COUNT(*) OVER (...) counts rows: no argument
        args = tuple(self._bind(a, None) for a in operands if not isinstance(a, exp.Star))
        partition = tuple(self._bind(p, None) for p in node.args.get("partition_by") or [])
        order_node = node.args.get("order")
        order = tuple(
            (self._bind(o.this, None), bool(o.args.get("desc"))) for o in (order_node.expressions if order_node else [])
        )
        udf = func.meta.get(USER_AGGREGATE)
        over = OverCall(
            name=collector.new_name("over"),
            func=agg_func(name, func) if udf is None else AggFunc.USER_DEFINED,
            args=args,
            partition=partition,
            order=order,
            frame=node.args.get("spec"),
            node=node,
            distinct=distinct,
            udf=udf,
            nulls=nulls,
        )
        collector.overs.append(over)
        return col(over.name)

    def _check_function(self, node: exp.Anonymous) -> None:
        name = node.name.upper()
        if name in LEGACY_WINDOW_FUNCS or name in LEGACY_WINDOW_PROPS:
            return  # validated by the aggregate binder
        if name == "CUMULATE" and self.user_function(node) is None:
            # as Flink's validator says it; Flink has no GROUP BY CUMULATE(...) group window
            raise BindError(
                "Cannot call table function here: 'CUMULATE'; it is a window table function: "
                "FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), step, max_size)) ... GROUP BY window_start, window_end",
                node,
            )
        udf = self.user_function(node)
        if udf is not None:
            sig = udf.signature
            if sig is not None and sig.table:
                raise BindError(
                    f"`{node.name}` is a table function: call it in FROM, as LATERAL TABLE({node.name}(...))", node
                )
            if sig is not None and sig.aggregate:
                raise BindError(f"Aggregate function {node.name} is not allowed here", node,
                                "aggregates belong in the select list or HAVING of a grouped query")
            # remembered on the call, so that what runs where can be decided from the plan alone
            node.meta["user_function"] = udf
            return
        if name == "SPLIT_INDEX" and len(node.expressions) != 3:
            raise BindError("SPLIT_INDEX takes (string, separator, index)", node)
        if callable_without_create(name) or name in AGG_NAMES or name in RANK_NAMES:
            return
        spelling = flink_spelling(name)
        if spelling is not None:
            raise BindError(f"`{node.name}` is not a Flink SQL function (Flink's validator refuses it)", node,
                            f"write {spelling}")
        raise BindError(f"No function named `{node.name}`", node, suggest_function(node.name))

    def user_function(self, node: exp.Anonymous) -> UserFunction | None:
        """The catalog function a call names, its arguments counted; errors at the call."""
        if self.functions is None:
            return None
        try:
            udf = self.functions(node.name)
        except UdfError as err:
            raise BindError(f"Function `{node.name}`: {err.message}", node, err.hint) from None
        sig = udf.signature if udf is not None else None
        if sig is not None and not sig.accepts(len(node.expressions)):
            raise BindError(
                f"Function `{node.name}` ('{sig.target}') takes {sig.arity()} argument{'' if sig.arity() == '1' else 's'}, "
                f"not {len(node.expressions)}",
                node,
            )
        return udf

    # -- typing --------------------------------------------------------------------------------

    def field_of(self, name: str, node: exp.Expr) -> Field:
        """The output field of a bound expression named ``name`` (keeps time attributes of a
        plain column reference, as Flink does)."""
        if isinstance(node, exp.Column):
            src = self.scope.by_internal.get(node.name)
            if src is not None:
                return Field(name, src.type, src.time, src.nullable, src.window)
        if isinstance(node, exp.Anonymous) and node.name.upper() == "PROCTIME":
            return Field(name, T.TIMESTAMP_LTZ3, TimeKind.PROCTIME, False)
        return Field(name, self.type_of(node))

    def type_of(self, node: exp.Expr) -> exp.DataType:
        return type_of(node, self.scope.by_internal)


