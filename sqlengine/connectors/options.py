"""Typed access to a table's WITH options for connectors: defaults from ``catalog.options``,
values parsed once, and every problem raised as a ConnectorError naming table and option."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TypeVar

from catalog import TableDef
from catalog.options import (
    check_value,
    find_spec,
    parse_bool,
    parse_duration,
    parse_memory,
    table_format,
    validate_options,
)
from sqlengine.connectors.errors import ConnectorError

T = TypeVar("T")


class TableOptions:
    # The methods int/float/bool shadow the builtins inside this class body, so annotations here
    # spell the types builtins.int etc.

    def __init__(self, table: TableDef):
        self.table = table
        self.connector = table.connector or ""
        self.fmt = table_format(table.options)

    def validate(self) -> None:
        """Raise the first problem ``catalog.options.validate_options`` finds."""
        problems = validate_options(self.table)
        if problems:
            p = problems[0]
            where = "" if f"'{p.key}'" in p.message else f" (option '{p.key}')"
            raise ConnectorError(
                f"Table `{self.table.name}`{where}: {p.message}", self.table.name, p.key
            )

    def raw(self, key: str) -> str | None:
        value = self.table.options.get(key)
        if value is not None:
            return value
        found = find_spec(self.connector, key, self.fmt)
        return found[0].default if found else None

    def has(self, key: str) -> builtins.bool:
        return key in self.table.options

    def _get(self, key: str, parse: Callable[[str], T]) -> T | None:
        value = self.raw(key)
        if value is None:
            return None
        try:
            return parse(value)
        except (ValueError, TypeError) as err:
            found = find_spec(self.connector, key, self.fmt)
            why = check_value(found[0], value) if found else None
            raise ConnectorError(
                f"Table `{self.table.name}`: option '{key}': {why or err}.", self.table.name, key
            ) from None

    def string(self, key: str) -> str | None:
        return self.raw(key)

    def int(self, key: str) -> builtins.int | None:
        return self._get(key, lambda v: int(v.strip()))

    def float(self, key: str) -> builtins.float | None:
        return self._get(key, lambda v: float(v.strip()))

    def bool(self, key: str) -> builtins.bool:
        return bool(self._get(key, parse_bool))

    def seconds(self, key: str) -> builtins.float | None:
        return self._get(key, parse_duration)

    def bytes(self, key: str) -> builtins.int | None:
        return self._get(key, parse_memory)

    def error(self, message: str, option: str | None = None) -> ConnectorError:
        """A ConnectorError about this table (and ``option``)."""
        where = f" (option '{option}')" if option else ""
        text = f"Table `{self.table.name}`{where}: {message}"
        return ConnectorError(text, self.table.name, option)


