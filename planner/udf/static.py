"""A Python function's SQL signature read from its source, without running any of it: what
lint, EXPLAIN and fmt use, so that reviewing a pull request never executes code the pull request
brings (docs/lint.md). The module's file is found on the same search path as an import would
(``loader.source_file``), parsed with ``ast``, and its ``def`` read: parameters, annotations
(only type names and their subscripts: ``int``, ``str | None``, ``list[float]``,
``Iterator[tuple[int, str]]``, ``datetime.date``, ``Decimal``, ...) and the literal arguments of
``@function(...)``. A function defined any other way (assigned, made by a factory) cannot be read
without running it: lint says so, and ``sqlengine run`` reads it by importing."""

from __future__ import annotations

import ast
import collections.abc
import datetime
import decimal
import typing
from collections.abc import Sequence
from typing import Any

from planner.udf.aggregate import aggregate_signature, missing_methods
from planner.udf.decorator import Declared
from planner.udf.loader import Params, Signature, UdfError, build, source_file

# the names an annotation may use, and what they stand for
_NAMES: dict[str, Any] = {
    "int": int, "str": str, "float": float, "bool": bool, "bytes": bytes, "bytearray": bytearray,
    "list": list, "dict": dict, "tuple": tuple, "List": typing.List, "Dict": typing.Dict,  # noqa: UP006
    "Tuple": typing.Tuple, "Optional": typing.Optional, "Union": typing.Union,  # noqa: UP006
    "Iterator": typing.Iterator, "Iterable": typing.Iterable, "Generator": typing.Generator,
    "Sequence": typing.Sequence, "Mapping": typing.Mapping,
    "date": datetime.date, "datetime": datetime.datetime, "time": datetime.time, "Decimal": decimal.Decimal,
}
_ATTRIBUTES: dict[str, Any] = {
    "datetime.date": datetime.date, "datetime.datetime": datetime.datetime, "datetime.time": datetime.time,
    "decimal.Decimal": decimal.Decimal,
    **{f"typing.{n}": getattr(typing, n) for n in ("List", "Dict", "Tuple", "Optional", "Union", "Iterator", "Iterable", "Generator", "Sequence", "Mapping")},
    **{f"{m}.{n}": getattr(collections.abc, n) for m in ("abc", "collections.abc") for n in ("Iterator", "Iterable", "Generator", "Sequence", "Mapping")},
}
_DECLARED = ("result", "params", "deterministic", "vectorized", "table")


class _Unreadable(Exception):
    pass


def resolve_static(target: str, paths: Sequence[str]) -> Signature:
    """The signature of ``target`` ('module.function') from its source (a class: an aggregate
    function, read from its methods)."""
    module_name, _, attr = target.rpartition(".")
    if not module_name or not attr:
        raise UdfError(f"'{target}' names no Python function: write 'module.function'")
    path = source_file(module_name, paths)
    if path is None:
        raise UdfError(
            f"cannot find Python module '{module_name}'",
            "put it beside the .sql file or in the current directory, or SET 'python.files' = 'path/to/module.py'",
        )
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as err:
        raise UdfError(f"Python module '{module_name}' has a syntax error: {err.msg} ({path}:{err.lineno})") from None
    except (OSError, ValueError) as err:
        raise UdfError(f"cannot read Python module '{module_name}' ({path}): {err}") from None
    found = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == attr]
    if not found:
        assigned = any(isinstance(n, (ast.Assign, ast.AnnAssign)) and attr in _targets(n) for n in tree.body)
        if assigned:
            raise UdfError(
                f"'{target}' is not a `def` in {path.name}: lint reads functions from their source without running them",
                "define it with def (sqlengine run imports the module and reads it either way)",
            )
        raise UdfError(f"Python module '{module_name}' has no function `{attr}`")
    fn = found[-1]  # the last definition is the one an import would keep
    if isinstance(fn, ast.ClassDef):
        return _aggregate(fn, target, str(path))
    params, hints, unreadable = _read(fn, fn.returns)
    return build(target, _declared(fn, target), params, hints, unreadable, _generator(fn), str(path))


def _read(fn: ast.FunctionDef | ast.AsyncFunctionDef, returns: ast.expr | None) -> tuple[Params, dict[str, Any] | None, str]:
    """A def's positional parameters, and their annotations and ``returns`` evaluated (None and
    why, when one cannot be read)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    names = tuple(a.arg for a in positional) + ((args.vararg.arg,) if args.vararg else ())
    params = Params(names, len(positional) - len(args.defaults), args.vararg is not None)
    hints: dict[str, Any] = {}
    try:
        for a in [*positional, *([args.vararg] if args.vararg else [])]:
            if a.annotation is not None:
                hints[a.arg] = _evaluate(a.annotation)
        if returns is not None:
            hints["return"] = _evaluate(returns)
    except _Unreadable as err:
        return params, None, str(err)
    return params, hints, ""


def _aggregate(cls: ast.ClassDef, target: str, path: str) -> Signature:
    """An aggregate function's signature from its class body (``planner.udf.aggregate``)."""
    methods = {n.name: n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    missing_methods(target, set(methods))
    get_value = methods["get_value"]
    params, hints, unreadable = _read(methods["accumulate"], get_value.returns)
    return aggregate_signature(target, _declared(cls, target), params, hints, unreadable, "retract" in methods, path)


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return {t.id for t in targets if isinstance(t, ast.Name)}


def _declared(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, target: str) -> Declared:
    for d in fn.decorator_list:
        call = d if isinstance(d, ast.Call) else None
        name = call.func if call is not None else d
        if not (isinstance(name, ast.Name) and name.id == "function") and not (isinstance(name, ast.Attribute) and name.attr == "function"):
            continue
        if call is None:
            return Declared()
        values: dict[str, Any] = {}
        for kw in call.keywords:
            if kw.arg not in _DECLARED:
                raise UdfError(f"@function of '{target}' has no argument `{kw.arg}`")
            try:
                values[kw.arg] = ast.literal_eval(kw.value)
            except ValueError:
                raise UdfError(f"@function of '{target}': `{kw.arg}` must be a literal for lint to read it") from None
        if "params" in values and values["params"] is not None:
            values["params"] = tuple(values["params"])
        return Declared(**values)
    return Declared()


def _evaluate(node: ast.expr) -> Any:
    """An annotation's value, from type names and their subscripts only (nothing else runs)."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return type(None)
        if node.value is Ellipsis:
            return Ellipsis
        if isinstance(node.value, str):  # a quoted annotation
            try:
                return _evaluate(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                raise _Unreadable(f"the annotation '{node.value}' is not a type") from None
    elif isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    elif isinstance(node, ast.Attribute):
        dotted = _dotted(node)
        if dotted in _ATTRIBUTES:
            return _ATTRIBUTES[dotted]
    elif isinstance(node, ast.Subscript):
        base = _evaluate(node.value)
        inner = node.slice
        items = tuple(_evaluate(e) for e in inner.elts) if isinstance(inner, ast.Tuple) else _evaluate(inner)
        try:
            return base[items]
        except TypeError as err:
            raise _Unreadable(f"`{ast.unparse(node)}`: {err}") from None
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return typing.Union[_evaluate(node.left), _evaluate(node.right)]  # noqa: UP007
    raise _Unreadable(f"`{ast.unparse(node)}` is not a type lint can read (a type name: int, str, list[float], ...)")


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def _generator(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A ``yield`` in the function's own body (not in a function nested in it)."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(n))
    return False
