"""Finding nodes in expression trees, in the order of sqlglot's ``walk()`` (breadth first).

Lint finds calls, identifiers and windows in every statement and in every operator's
expressions; sqlglot's ``find_all`` goes through three generators per node (walk, bfs,
iter_expressions). One loop over the arguments gives the same nodes in the same order."""

from __future__ import annotations

from typing import TypeVar

from sqlglot import exp

E = TypeVar("E", bound=exp.Expr)


def find_all(expr: exp.Expr, *types: type[E]) -> list[E]:
    """``list(expr.find_all(*types))``."""
    found: list[E] = []
    queue = [expr]
    for node in queue:  # the queue grows while it is read: breadth first
        if isinstance(node, types):
            found.append(node)
        for value in node.args.values():
            if type(value) is list:
                queue.extend(v for v in value if isinstance(v, exp.Expr))
            elif isinstance(value, exp.Expr):
                queue.append(value)
    return found
