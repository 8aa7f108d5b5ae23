"""Copying expression trees, the binder's most frequent operation: binding copies each parsed
expression before resolving its columns, and merging projections copies what it substitutes.

sqlglot's ``Expr.copy()`` goes through ``copy.deepcopy``, which copies every node's meta (source
positions) and comments with the generic, memo-keeping deep copy: that was most of the cost of
a copy. The values kept there are ints, strings and booleans (positions, flags), so a dict and a
list copy give the same tree, several times faster."""

from __future__ import annotations

from typing import TypeVar

from sqlglot import exp

E = TypeVar("E", bound=exp.Expr)


def _blank(node: exp.Expr, parent: exp.Expr | None, key: str | None, index: int | None) -> exp.Expr:
    # what ``cls()`` makes (no constructor takes extra state when it has no arguments), without
    # the call: its slots set directly
    new = node.__class__.__new__(node.__class__)
    new.args = {}
    new.parent, new.arg_key, new.index = parent, key, index
    new.comments = list(node.comments) if node.comments is not None else None
    new._type = copy_expr(node._type) if node._type is not None else None
    new._meta = dict(node._meta) if node._meta is not None else None
    new._hash = None  # a cache, computed again when asked
    return new


def copy_expr(expr: E) -> E:
    """The same tree as ``expr.copy()``: new nodes with the same arguments, comments, meta and
    type, parents and indexes set; the original is untouched."""
    root = _blank(expr, None, None, None)
    stack: list[tuple[exp.Expr, exp.Expr]] = [(expr, root)]
    while stack:
        node, new = stack.pop()
        args = new.args
        for key, value in node.args.items():
            if isinstance(value, exp.Expr):
                child = _blank(value, new, key, None)
                stack.append((value, child))
                args[key] = child
            elif type(value) is list:
                items: list[object] = []
                for v in value:
                    if isinstance(v, exp.Expr):
                        child = _blank(v, new, key, len(items))
                        stack.append((v, child))
                        items.append(child)
                    else:
                        items.append(v)
                args[key] = items
            else:
                args[key] = value
    return root  # type: ignore[return-value]  # _blank makes a node of expr's own class
