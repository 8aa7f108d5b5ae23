"""Connector errors: one clear line naming the table and the option, never a stack trace."""

from __future__ import annotations


class ConnectorError(Exception):
    """A table cannot be read or written as configured; ``str(err)`` is shown to the user."""

    def __init__(self, message: str, table: str | None = None, option: str | None = None):
        self.table, self.option = table, option
        super().__init__(" ".join(message.split()))  # one line, whatever the caller wrote
