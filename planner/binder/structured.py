"""OBJECT_OF and OBJECT_UPDATE: Flink's structured types, built and changed in SQL.

``OBJECT_OF('com.example.User', 'name', 'Bob', 'age', 42)`` is a value of a structured type:
its fields named by the literal keys, typed by their values (Flink's STRUCTURED<'com.example.User',
name CHAR(3), age INT>; the class need not exist). Here it is a struct whose type is OBJECT, so
that what differs from a ROW stays visible: CAST to STRING names each field, '(name=Bob, age=42)'
where a ROW gives '(Bob, 42)'. ``OBJECT_UPDATE(obj, 'age', 43, ...)`` replaces fields the object
has, each taking its new value's type. What Flink's validator refuses is refused here, at the call.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from planner.logical import typing as T
from planner.problems import BindError

NAMES = ("OBJECT_OF", "OBJECT_UPDATE")


def fields(t: exp.DataType) -> list[tuple[str, exp.DataType]]:
    """A STRUCT's or OBJECT's fields, in order."""
    return [(m.name, m.args.get("kind") or T.UNKNOWN) for m in t.expressions if isinstance(m, exp.ColumnDef)]


def object_type(members: list[tuple[str, exp.DataType]]) -> exp.DataType:
    columns = [exp.ColumnDef(this=exp.to_identifier(n, quoted=True), kind=t.copy()) for n, t in members]
    return exp.DataType(this=exp.DType.OBJECT, expressions=columns, nested=True)


def _keys(node: exp.Anonymous, pairs: list[exp.Expr]) -> list[str]:
    """The literal keys of ``key, value`` pairs (as written); refused as Flink refuses them."""
    name = node.name.upper()
    if len(pairs) % 2:
        raise BindError(f"{name} takes its fields as key, value pairs: the last key `{pairs[-1].sql()}` has no value", node)
    keys = []
    for key in pairs[::2]:
        if not (isinstance(key, exp.Literal) and key.is_string):
            raise BindError(f"Invalid function call {name}: a field name must be a string literal, not `{key.sql()}`", key)
        if key.this in keys:
            raise BindError(f"Invalid function call {name}: the field `{key.this}` is given twice", key)
        keys.append(key.this)
    return keys


def check(node: exp.Anonymous, type_of: Callable[[exp.Expr], exp.DataType], written: list[exp.Expr]) -> None:
    """Refuse a call Flink refuses, after its arguments are bound (so that they have types);
    ``written``: the arguments as written, which errors point at and show."""
    args = written
    name = node.name.upper()
    if name == "OBJECT_OF":
        if not args or not (isinstance(args[0], exp.Literal) and args[0].is_string):
            raise BindError("Invalid function call OBJECT_OF: its first argument is the class name, a string literal", node,
                            "OBJECT_OF('com.example.User', 'name', name, 'age', age)")
        _keys(node, args[1:])
        return
    if len(args) < 3:
        raise BindError("OBJECT_UPDATE takes an object, then one or more key, value pairs", node)
    base = type_of(node.expressions[0])
    if not T.is_type(base, exp.DType.OBJECT):
        raise BindError(f"Invalid function call OBJECT_UPDATE: `{args[0].sql()}` is no structured object (OBJECT_OF makes one)", args[0])
    known = [n for n, _ in fields(base)]
    for key, lit in zip(_keys(node, args[1:]), args[1::2], strict=True):
        if key not in known:
            raise BindError(f"Invalid function call OBJECT_UPDATE: the object has no field `{key}`", lit,
                            f"its fields: {', '.join(known) or 'none'}")


def call_type(node: exp.Anonymous, type_of: Callable[[exp.Expr], exp.DataType]) -> exp.DataType:
    """The OBJECT type a call gives (UNKNOWN for a call the binder refuses)."""
    args = node.expressions
    pairs = list(zip(args[1::2], args[2::2], strict=False))
    if node.name.upper() == "OBJECT_OF":
        return object_type([(k.name, type_of(v)) for k, v in pairs])
    base = type_of(args[0]) if args else T.UNKNOWN
    if not T.is_type(base, exp.DType.OBJECT):
        return T.UNKNOWN
    updated = {k.name: type_of(v) for k, v in pairs}
    return object_type([(n, updated.get(n, t)) for n, t in fields(base)])
