"""Names as the user wrote them, read back from the syntax tree an operator came from.

The plan knows scans of base tables (a view is expanded, an alias is gone); a message that says
``datagen`` where the user wrote ``auction AS A`` is hard to act on. These helpers recover the
relation (table or view name and alias), the ON condition and the FROM clause from ``origin``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from planner.dialect import Flink
from planner.logical.fields import TimeKind
from planner.logical.joins import Join
from planner.logical.operators import Node
from planner.rules.base import RuleContext


@dataclass(frozen=True)
class Relation:
    label: str  # for messages: `auction` AS A
    qualifier: str | None  # for SQL: A (alias) or auction (name); None: not one named relation
    name: str | None = None  # the table or view name, for TABLE(...) arguments


def sql(e: exp.Expr | None) -> str:
    return e.sql(dialect=Flink) if e is not None else ""


def written_origin(ctx: RuleContext, node: Node) -> exp.Expr | None:
    """``node.origin`` when it belongs to this statement's text (not to an expanded view); a copy
    the binder detached is traded for the same subtree in the statement's tree."""
    origin = node.origin
    if origin is None or not ctx.written(origin):
        return None
    if origin.parent is None and not isinstance(origin, (exp.Insert, exp.Select, exp.Union)):
        root = _statement_root(ctx)
        if root is not None:
            start = _first_start(origin)
            same = next((e for e in root.find_all(type(origin)) if e == origin and _first_start(e) == start), None)
            return same or origin
    return origin


def _first_start(e: exp.Expr) -> int | None:
    return next((s.meta["start"] for s in e.walk() if isinstance(s, exp.Identifier) and "start" in s.meta), None)


def _statement_root(ctx: RuleContext) -> exp.Expr | None:
    for n in ctx.plan.walk():
        if n.origin is not None and n.origin.parent is not None and ctx.written(n.origin):
            e = n.origin
            while e.parent is not None:
                e = e.parent
            return e
    for n in ctx.plan.walk():
        if isinstance(n.origin, (exp.Insert, exp.Select, exp.Union)) and ctx.written(n.origin):
            return n.origin
    return None


def relation(e: exp.Expr | None) -> Relation | None:
    """A FROM item as written: a table or view (with alias), or an aliased subquery."""
    if isinstance(e, exp.Table) and isinstance(e.this, exp.Identifier):
        name = ".".join(p.name for p in e.parts)
        alias = e.alias
        label = f"`{name}` AS {alias}" if alias else f"`{name}`"
        return Relation(label, alias or name, name)
    if isinstance(e, exp.Table):  # TABLE(TUMBLE(TABLE t, ...)): name the table inside
        inner = next((t for t in e.find_all(exp.Table) if t is not e and isinstance(t.this, exp.Identifier)), None)
        found = relation(inner)
        if found is not None:
            return Relation(f"the window over {found.label}", e.alias or None, found.name)
    if isinstance(e, exp.Subquery):
        alias = e.alias
        return Relation(f"the subquery {alias}" if alias else "a subquery", alias or None)
    return None


def join_sides(ctx: RuleContext, join: Join) -> tuple[Relation | None, Relation | None]:
    """The left and right inputs of a join as the FROM clause names them."""
    origin = written_origin(ctx, join)
    if not isinstance(origin, exp.Join):
        return None, None
    right = relation(origin.this)
    select = origin.parent
    if not isinstance(select, exp.Select):
        return None, right
    joins = select.args.get("joins") or []
    first = select.args.get("from_")
    index = next((i for i, j in enumerate(joins) if j is origin), 0)
    if index == 0 and first is not None:
        return relation(first.this), right
    names = [relation(first.this) if first is not None else None] + [relation(j.this) for j in joins[:index]]
    labels = ", ".join(r.label for r in names if r is not None)
    return Relation(f"the join of {labels}", None), right


def on_condition(ctx: RuleContext, join: Join) -> str | None:
    """``ON <condition>`` as written, or ``WHERE <condition>`` for a comma join."""
    origin = written_origin(ctx, join)
    if not isinstance(origin, exp.Join):
        return None
    if origin.args.get("on") is not None:
        return "ON " + sql(origin.args["on"])
    where = origin.parent.args.get("where") if isinstance(origin.parent, exp.Select) else None
    return "WHERE " + sql(where.this) if where is not None else None


def enclosing_select(ctx: RuleContext, node: Node | None) -> exp.Select | None:
    """The SELECT ``node`` was bound from: its origin's, or (for a subtree the binder detached)
    the nearest operator above it that came from a SELECT of this statement."""
    while node is not None:
        origin = written_origin(ctx, node)
        if origin is not None:
            select = origin if isinstance(origin, exp.Select) else origin.find_ancestor(exp.Select)
            if select is not None:
                return select
        node = ctx.parent(node)
    return None


def from_relation(ctx: RuleContext, node: Node) -> Relation | None:
    """The single relation of the FROM clause of the SELECT ``node`` came from (no joins)."""
    select = enclosing_select(ctx, node)
    if select is None or select.args.get("joins"):
        return None
    first = select.args.get("from_")
    return relation(first.this) if first is not None else None


def side_label(ctx: RuleContext, rel: Relation | None, side: Node) -> str:
    if rel is not None:
        return rel.label
    tables = ctx.lineage.tables(side)
    return ", ".join(f"`{t}`" for t in tables) or "the input"


def rowtime_column(ctx: RuleContext, node: Node) -> str | None:
    """The event-time attribute in ``node``'s output, as the user names it."""
    for f in node.fields:
        if f.time == TimeKind.ROWTIME:
            return ctx.lineage.display(node, f.name)
    return None


def source_rowtime(ctx: RuleContext, node: Node | None) -> str | None:
    """The event-time attribute of the FROM relation under ``node`` (through projections)."""
    while node is not None:
        found = rowtime_column(ctx, node)
        if found is not None:
            return found
        node = node.inputs[0] if len(node.inputs) == 1 else None
    return None


def time_column(ctx: RuleContext, node: Node, name: str) -> str:
    return ctx.lineage.display(node, name)


def keys_text(labels: tuple[str, ...] | list[str], empty: str = "no key") -> str:
    return ", ".join(labels) if labels else empty
