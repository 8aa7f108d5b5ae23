"""Named windows: ``COUNT(*) OVER w ... WINDOW w AS (PARTITION BY a ORDER BY ts)``. Each
reference (``OVER w`` or ``OVER (w ORDER BY ...)``) becomes the window it names, in place, before
the select list is bound; a reference may add what its definition leaves out (ORDER BY, the
frame), as the SQL standard allows, and a definition may start from an earlier one."""

from __future__ import annotations

from sqlglot import exp

from planner.logical.walk import find_all
from planner.problems import BindError

PARTS = ("partition_by", "order", "spec")


def expand_named_windows(sel: exp.Select) -> None:
    """Replace every reference to a window of ``sel``'s WINDOW clause by its definition."""
    definitions = sel.args.get("windows") or []
    named: dict[str, exp.Window] = {}
    for d in definitions:
        name = d.this.name.lower() if isinstance(d.this, exp.Identifier) else None
        if name is None:
            continue
        if name in named:
            raise BindError(f"Window '{d.this.name}' is defined twice", d)
        named[name] = _resolved(d, named)
    for window in find_all(sel, exp.Window):
        if window in definitions or window.find_ancestor(exp.Select) is not sel:
            continue
        alias = window.args.get("alias")
        if not isinstance(alias, exp.Identifier):
            continue
        base = named.get(alias.name.lower())
        if base is None:
            raise BindError(f"Window '{alias.name}' is not defined: add WINDOW {alias.name} AS (...) to the query", alias)
        _merge(window, base, alias)
        window.set("alias", None)


def _resolved(definition: exp.Window, named: dict[str, exp.Window]) -> exp.Window:
    """A definition with the window it starts from (``WINDOW w2 AS (w1 ORDER BY ts)``) merged in."""
    out = exp.Window(**{k: v.copy() for k in PARTS if (v := definition.args.get(k)) is not None})
    base_name = definition.args.get("alias")
    if isinstance(base_name, exp.Identifier):
        base = named.get(base_name.name.lower())
        if base is None:
            raise BindError(f"Window '{base_name.name}' is not defined before it is used", base_name)
        _merge(out, base, base_name)
    return out


def _merge(window: exp.Window, base: exp.Window, where: exp.Expr) -> None:
    """Fill ``window`` from ``base``; the reference may not redo what the definition has."""
    if window.args.get("partition_by") and base.args.get("partition_by"):
        raise BindError("A reference to a named window cannot add PARTITION BY", where)
    if window.args.get("order") and base.args.get("order"):
        raise BindError("A reference to a named window cannot add ORDER BY: its definition has one", where)
    for part in PARTS:
        if not window.args.get(part) and base.args.get(part) is not None:
            value = base.args[part]
            window.set(part, [v.copy() for v in value] if isinstance(value, list) else value.copy())
