"""What Spark can run, expression by expression: the calls in a node's expressions (projections,
conditions, computed columns, aggregate arguments) that have no translation to Spark."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlglot import exp

from catalog import FunctionDef, TableDef, ViewDef
from planner.analysis.check.codes import Code
from planner.analysis.check.functions import hash_code_runs, refused
from planner.analysis.check.problem import Problem, problem
from planner.binder.types import type_of
from planner.dialect import type_sql
from planner.logical.operators import GroupAggregate, Node, OverAggregate, WindowAggregate
from planner.logical.specs import AggCall, AggFunc
from planner.logical.walk import find_all

NO_COUNTERPART = ("CURRENT_WATERMARK", "CURRENT_ROW_TIMESTAMP")
_DISTINCT_OK = (AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG, AggFunc.MIN, AggFunc.MAX)


def expressions(value: Any) -> list[exp.Expr]:
    """The bound expressions a node holds (projections, conditions, aggregate arguments, computed
    columns, ...), not its inputs nor the syntax it came from."""
    out: list[exp.Expr] = []
    _collect(value, out)
    return out


# values that hold no expression: scalars, and the catalog's definitions (a scan's or a sink's
# table; the catalog keeps types and expressions as text)
_NONE_INSIDE = (str, int, float, bool, type(None), TableDef, ViewDef, FunctionDef)


_FIELD_NAMES: dict[tuple[type, tuple[str, ...]], tuple[str, ...]] = {}


def _field_names(cls: type, skip: tuple[str, ...]) -> tuple[str, ...]:
    names = _FIELD_NAMES.get((cls, skip))
    if names is None:
        names = _FIELD_NAMES[(cls, skip)] = tuple(f.name for f in dataclasses.fields(cls) if f.name not in skip)
    return names


def _collect(value: Any, out: list[exp.Expr]) -> None:
    if isinstance(value, exp.Expr):
        out.append(value)
    elif isinstance(value, _NONE_INSIDE):
        return
    elif isinstance(value, (tuple, list)):
        for v in value:
            _collect(v, out)
    elif dataclasses.is_dataclass(value) and not isinstance(value, (Node, type)):
        for name in _field_names(type(value), ("origin", "filters")):
            _collect(getattr(value, name), out)


def node_expressions(node: Node) -> list[exp.Expr]:
    out: list[exp.Expr] = []
    for name in _field_names(type(node), ("origin", "filters", "fields")):
        _collect(getattr(node, name), out)
    return out


def check_expressions(node: Node) -> list[Problem]:
    """The first call of each problem kind in the node's expressions (one is enough to refuse)."""
    out: list[Problem] = []
    for e in node_expressions(node):
        for call in find_all(e, exp.Func):
            found = _call(node, call)
            if found is not None and all(p.code != found.code for p in out):
                out.append(found)
    if isinstance(node, (GroupAggregate, WindowAggregate, OverAggregate)):
        out += _distinct(node, node.aggs)
    return out


def _call(node: Node, call: exp.Expr) -> Problem | None:
    found = refused(call)
    if found is not None:
        return problem(Code.FUNCTION_DIFFERS, node, call, function=found[0], reason=found[1])
    if isinstance(call, exp.Split):  # Flink's SPLIT(s, delimiter): a literal delimiter
        sep = call.expression
        if not (isinstance(sep, exp.Literal) and sep.is_string):
            return problem(Code.LITERAL_SEPARATOR, node, call, function="SPLIT")
        return None
    if not isinstance(call, exp.Anonymous):
        return None
    name = call.name.upper()
    udf = call.meta.get("user_function")
    if udf is not None:
        if udf.signature is None:  # a JVM class: not loaded
            d = udf.definition
            return problem(Code.USER_FUNCTION, node, call, name=call.name, class_name=d.class_name, language=d.language)
        return None
    if name in NO_COUNTERPART:
        return problem(Code.NO_COUNTERPART, node, call, function=name)
    if name == "HASH_CODE" and call.expressions:
        t = type_of(call.expressions[0], {f.name: f for child in node.inputs for f in child.fields})
        if not hash_code_runs(t):
            return problem(Code.FUNCTION_DIFFERS, node, call, function=name,
                           reason=f"Java's hashCode of a {type_sql(t)} has no Spark counterpart (strings, integers and BOOLEAN run)")
    if name == "TO_TIMESTAMP_LTZ" and len(call.expressions) == 2:
        precision = call.expressions[1]
        literal = isinstance(precision, exp.Literal)
        # (epoch, 0 | 3) and (text, format) run
        if not (literal and (precision.is_string or precision.name in ("0", "3"))):
            return problem(Code.FUNCTION_DIFFERS, node, call, function=name,
                               reason="its precision must be the literal 0 (seconds) or 3 (milliseconds)")
    if name == "SPLIT_INDEX":
        args = call.expressions
        sep = args[1] if len(args) > 1 else None
        if not (isinstance(sep, exp.Literal) and sep.is_string):
            return problem(Code.LITERAL_SEPARATOR, node, call, function="SPLIT_INDEX")
    return None


def _distinct(node: Node, aggs: tuple[AggCall, ...]) -> list[Problem]:
    """DISTINCT aggregates run as sets of values (COUNT, SUM, AVG; MIN/MAX ignore DISTINCT)."""
    for a in aggs:
        if a.distinct and a.func not in _DISTINCT_OK:
            return [problem(Code.DISTINCT_AGGREGATE, node, a.call, function=a.function_name)]
    return []
