"""Plan clean-up after binding: consecutive projections/filters become one Calc, and a Calc that
passes its input through unchanged disappears. Results are unchanged; plans read better and
translate to fewer Spark projections."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from planner.binder.joins import and_all, conjuncts
from planner.logical.copying import copy_expr, copy_replacing
from planner.logical.operators import Calc, Node
from planner.logical.visit import transform


def _substitute(e: exp.Expr, mapping: dict[str, exp.Expr]) -> exp.Expr:
    if isinstance(e, exp.Column) and not e.table:
        # most projections: the inner expression itself, shared by both operators (plans and
        # their expressions are never changed in place; a copy is made where one is put into
        # another tree, below)
        return mapping.get(e.name, e)

    def repl(n: exp.Expr, is_root: bool) -> exp.Expr | None:
        if isinstance(n, exp.Column) and not n.table and n.name in mapping:
            inner = copy_expr(mapping[n.name])
            # keep operator precedence: a composite expression substituted into another one
            if not isinstance(inner, (exp.Column, exp.Literal, exp.Func, exp.Paren, exp.Dot, exp.Cast)) and not is_root:
                return exp.Paren(this=inner)
            return inner
        return None

    return copy_replacing(e, repl)


def _is_identity(calc: Calc) -> bool:
    inp = calc.input.fields
    if calc.condition is not None or len(calc.projections) != len(inp):
        return False
    for (name, e), f_in, f_out in zip(calc.projections, inp, calc.fields, strict=True):
        if not (isinstance(e, exp.Column) and e.name == f_in.name == name):
            return False
        if (f_out.time, f_out.window) != (f_in.time, f_in.window):
            return False
    return True


def merge(outer: Calc, inner: Calc) -> Calc:
    mapping = dict(inner.projections)
    projections = tuple((n, _substitute(e, mapping)) for n, e in outer.projections)
    conds = conjuncts(inner.condition)
    if outer.condition is not None:
        conds += conjuncts(_substitute(outer.condition, mapping))
    return replace(
        outer,
        input=inner.input,
        projections=projections,
        condition=and_all(conds),
        origin=outer.origin if outer.origin is not None else inner.origin,
    )


def _step(node: Node) -> Node:
    if isinstance(node, Calc) and isinstance(node.input, Calc):
        node = merge(node, node.input)
    if isinstance(node, Calc) and _is_identity(node):
        return node.input
    return node


def simplify(plan: Node) -> Node:
    return transform(plan, _step)


def simplify_top(node: Node) -> Node:
    """``simplify(node)`` for a node whose input is simplified already (an INSERT's projection
    onto its target's columns, over the query): only the top can change."""
    return _step(node)
