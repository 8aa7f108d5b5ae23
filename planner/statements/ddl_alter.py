"""ALTER TABLE and ALTER VIEW on a catalog definition: options, columns, watermark, primary key;
a view's query and comment. Pure functions of the old definition: the session applies them inside
the catalog's transaction (``Catalog.update``), so concurrent ALTERs lose nothing."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from catalog import Column, TableDef, ViewDef, Watermark
from planner.dialect import Flink, nodes
from planner.problems import DefinitionError
from planner.statements.ddl import _column_from_def, validate_table


def _sql(node: exp.Expr) -> str:
    return node.sql(dialect=Flink)


def _place(columns: list[Column], col: Column, position: exp.Expr | None) -> list[Column]:
    if position is None:
        return columns + [col]
    where = position.text("position")
    if where == "FIRST":
        return [col] + columns
    anchor = position.this.name
    names = [c.name for c in columns]
    if anchor not in names:
        raise DefinitionError(f"AFTER `{anchor}`: no such column", position)
    i = names.index(anchor)
    return columns[: i + 1] + [col] + columns[i + 1 :]


def alter_table(table: TableDef, alter: nodes.AlterTable) -> TableDef:
    action = alter.text("action")
    items = alter.expressions
    if action == "SET":
        options = dict(table.options)
        for p in items:
            options[p.this.name] = p.args["value"].name
        return replace(table, options=options)
    if action == "RESET":
        options = dict(table.options)
        for key in items:
            options.pop(key.name, None)
        return replace(table, options=options)
    if action == "COMMENT":
        return replace(table, comment=alter.expression.name)
    if action == "RENAME COLUMN":
        old, new = items[0].name, items[1].name
        if table.column(old) is None:
            raise DefinitionError(f"Column `{old}` does not exist", items[0])
        if table.column(new) is not None:
            raise DefinitionError(f"Column `{new}` already exists", items[1])
        cols = tuple(replace(c, name=new) if c.name == old else c for c in table.columns)
        wm = table.watermark
        if wm is not None and wm.column.strip("`") == old:
            wm = Watermark(new, wm.expr)
        pk = tuple(new if k == old else k for k in table.primary_key)
        return replace(table, columns=cols, watermark=wm, primary_key=pk)
    if action in ("ADD", "MODIFY"):
        columns = list(table.columns)
        watermark = table.watermark
        pk = table.primary_key
        for item in items:
            if isinstance(item, exp.ColumnDef):
                col = _column_from_def(item)
                existing = table.column(col.name)
                if action == "ADD" and existing is not None:
                    raise DefinitionError(f"Column `{col.name}` already exists; use MODIFY", item)
                if action == "MODIFY" and existing is None:
                    raise DefinitionError(f"Column `{col.name}` does not exist; use ADD", item)
                columns = [c for c in columns if c.name != col.name]
                position = item.args.get("position")
                if action == "MODIFY" and position is None:
                    idx = [c.name for c in table.columns].index(col.name)
                    columns.insert(idx, col)
                else:
                    columns = _place(columns, col, position)
            elif isinstance(item, exp.WatermarkColumnConstraint):
                if action == "ADD" and watermark is not None:
                    raise DefinitionError("The table already has a watermark; use MODIFY", item)
                watermark = Watermark(_sql(item.this), _sql(item.expression))
            elif isinstance(item, exp.PrimaryKey):
                if action == "ADD" and pk:
                    raise DefinitionError("The table already has a primary key; use MODIFY", item)
                pk = tuple(i.name for i in item.expressions)
            else:
                raise DefinitionError(f"ALTER TABLE {action} of partitions or distribution is not supported", item)
        out = replace(table, columns=tuple(columns), watermark=watermark, primary_key=pk)
        validate_table(out, alter)
        return out
    if action == "DROP":
        target = alter.text("target")
        if target == "WATERMARK":
            if table.watermark is None:
                raise DefinitionError("The table has no watermark", alter)
            return replace(table, watermark=None)
        if target == "PRIMARY KEY":
            if not table.primary_key:
                raise DefinitionError("The table has no primary key", alter)
            return replace(table, primary_key=())
        if target:
            raise DefinitionError(f"ALTER TABLE DROP {target} is not supported", alter)
        names = [i.name for i in items]
        for n in names:
            if table.column(n) is None:
                raise DefinitionError(f"Column `{n}` does not exist", alter)
            if n in table.primary_key:
                raise DefinitionError(f"Column `{n}` is in the primary key; drop the key first", alter)
            if table.watermark is not None and table.watermark.column.strip("`") == n:
                raise DefinitionError(f"Column `{n}` carries the watermark; drop the watermark first", alter)
        return replace(table, columns=tuple(c for c in table.columns if c.name not in names))
    raise DefinitionError(f"ALTER TABLE ... {action} is not supported", alter)


def alter_view(view: ViewDef, alter: nodes.AlterTable) -> ViewDef:
    """ALTER VIEW v AS query | COMMENT '...' on a view's definition (the query is checked by the caller)."""
    action = alter.text("action")
    if action == "AS":
        return replace(view, query=_sql(alter.expression))
    if action == "COMMENT":
        return replace(view, comment=alter.expression.name)
    raise DefinitionError(f"ALTER VIEW ... {action} is not supported", alter)
