"""Object names: Flink's three-part names map onto sqlengine's single catalog."""

from __future__ import annotations

from sqlglot import exp

from planner.problems import DefinitionError

DEFAULT_CATALOG = "default_catalog"
DEFAULT_DATABASE = "default_database"


def object_name(table: exp.Expr) -> str:
    """`t`, `default_database.t` or `default_catalog.default_database.t` -> `t`."""
    if isinstance(table, exp.Table):
        catalog, db = table.catalog, table.db
        if (catalog and catalog != DEFAULT_CATALOG) or (db and db != DEFAULT_DATABASE):
            where = f"{catalog}.{db}" if catalog else db
            raise DefinitionError(
                f"Catalog or database `{where}` does not exist: sqlengine keeps one catalog, "
                f"{DEFAULT_CATALOG}.{DEFAULT_DATABASE}",
                table,
            )
        return table.name
    if isinstance(table, exp.Identifier):
        return table.name
    return table.name
