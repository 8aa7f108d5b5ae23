"""Copying expression trees, the binder's most frequent operation: binding copies each parsed
expression before resolving its columns, and merging projections copies what it substitutes.

sqlglot's ``Expr.copy()`` goes through ``copy.deepcopy``, which copies every node's meta (source
positions) and comments with the generic, memo-keeping deep copy: that was most of the cost of
a copy. The values kept there are ints, strings and booleans (positions, flags), so a dict and a
list copy give the same tree, several times faster."""

from __future__ import annotations

from collections.abc import Callable
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
    return copy_replacing(expr, None)  # type: ignore[return-value]  # nothing replaced: a node of expr's class


Replace = Callable[[exp.Expr, bool], exp.Expr | None]


def copy_replacing(expr: exp.Expr, replace: Replace | None) -> exp.Expr:
    """``expr.copy().transform(f, copy=False)`` in one pass, for an ``f`` that returns a new
    node for some nodes and the node itself for the others: ``replace(node, is_root)`` gives
    the new node (put in place of the copy, not looked into) or None (the node is copied)."""
    if replace is not None:
        new_root = replace(expr, True)
        if new_root is not None:
            return new_root
    root = _blank(expr, None, None, None)
    stack: list[tuple[exp.Expr, exp.Expr]] = [(expr, root)]
    while stack:
        node, new = stack.pop()
        args = new.args
        for key, value in node.args.items():
            if isinstance(value, exp.Expr):
                child = replace(value, False) if replace is not None else None
                if child is None:
                    child = _blank(value, new, key, None)
                    stack.append((value, child))
                else:
                    child.parent, child.arg_key, child.index = new, key, None
                args[key] = child
            elif type(value) is list:
                items: list[object] = []
                for v in value:
                    if isinstance(v, exp.Expr):
                        child = replace(v, False) if replace is not None else None
                        if child is None:
                            child = _blank(v, new, key, len(items))
                            stack.append((v, child))
                        else:
                            child.parent, child.arg_key, child.index = new, key, len(items)
                        items.append(child)
                    else:
                        items.append(v)
                args[key] = items
            else:
                args[key] = value
    return root
