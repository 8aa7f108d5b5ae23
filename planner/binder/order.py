"""ORDER BY and LIMIT of a SELECT: a Sort over its projection. As in Flink, ORDER BY may name a
column the SELECT list leaves out, or an expression: those are computed under hidden names
($order0, ...) by the projection, sorted on, and projected away again."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.base import BinderBase
from planner.binder.expressions import ExprBinder
from planner.binder.scope import Relation, Scope
from planner.logical.operators import Node, Sort
from planner.problems import BindError


class OrderMixin(BinderBase):
    """Mixed into Binder (through SelectMixin)."""

    def order_inputs(self, sel: exp.Select, names: list[str], binder: ExprBinder) -> dict[int, tuple[str, exp.Expr]]:
        """ORDER BY items that are not output columns (a column of the FROM clause, or an
        expression), bound over the SELECT's input as Flink does: {item index: (hidden name, expr)}."""
        order = sel.args.get("order")
        out: dict[int, tuple[str, exp.Expr]] = {}
        for i, o in enumerate(order.expressions if order is not None else []):
            e = o.this
            if (isinstance(e, exp.Column) and not e.table and e.name in names) or _ordinal(e) is not None:
                continue
            out[i] = (f"$order{i}", binder.bind(e))
        return out

    def order_limit(self, node: Node, sel: exp.Select | exp.SetOperation, hidden: dict[int, str], n_out: int) -> Node:
        """The Sort of ORDER BY / LIMIT over ``node`` (the projection: its first ``n_out`` fields
        are the SELECT list, the rest hidden ORDER BY columns); ``ORDER BY 2`` is the second."""
        order = sel.args.get("order")
        limit = sel.args.get("limit")
        if order is None and limit is None:
            return node
        scope = Scope()
        scope.add(Relation(None, list(node.fields), node.field_names()))
        binder = ExprBinder(scope)
        keys = []
        for i, o in enumerate(order.expressions if order is not None else []):
            if i in hidden:
                keys.append((hidden[i], bool(o.args.get("desc"))))
                continue
            position = _ordinal(o.this)
            if position is not None:
                if not 1 <= position <= n_out:
                    raise BindError(f"ORDER BY position {position} is not in the SELECT list (1 to {n_out})", o.this)
                keys.append((node.fields[position - 1].name, bool(o.args.get("desc"))))
                continue
            e = binder.bind(o.this)
            if not isinstance(e, exp.Column):
                raise BindError("ORDER BY takes output columns", o)
            keys.append((e.name, bool(o.args.get("desc"))))
        n = None
        if limit is not None:
            value = limit.args.get("expression")
            try:
                n = int(value.name)
            except (AttributeError, ValueError):
                raise BindError("LIMIT takes a number", limit) from None
        return Sort(node.fields, input=node, order=tuple(keys), limit=n, origin=order or limit)


def _ordinal(e: exp.Expr) -> int | None:
    """``ORDER BY 2``: the position of a SELECT list item (an integer literal), else None."""
    if isinstance(e, exp.Literal) and not e.is_string and e.this.isdigit():
        return int(e.this)
    return None
