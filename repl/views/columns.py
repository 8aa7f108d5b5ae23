"""Column widths and row formatting shared by the result views.

Streaming output cannot re-align rows already printed, so widths are decided up front, the way
Flink's SQL client does: from each column's type (a BIGINT needs at most 20 characters, a
TIMESTAMP(3) 23), and for strings from the header and the first rows, capped by
``'sql-client.display.max-column-width'`` (default 30); longer values end in "…".
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from repl.client import format_value

DEFAULT_MAX_WIDTH = 30

_TYPE_WIDTH = {
    exp.DType.BOOLEAN: 5,
    exp.DType.TINYINT: 4,
    exp.DType.SMALLINT: 6,
    exp.DType.INT: 11,
    exp.DType.BIGINT: 20,
    exp.DType.FLOAT: 14,
    exp.DType.DOUBLE: 22,
    exp.DType.DATE: 10,
    exp.DType.TIME: 12,
    exp.DType.TIMESTAMP: 23,
    exp.DType.TIMESTAMPLTZ: 23,
    exp.DType.TIMESTAMPTZ: 23,
}


def max_width(settings: dict[str, str]) -> int:
    try:
        return max(4, int(settings.get("sql-client.display.max-column-width") or DEFAULT_MAX_WIDTH))
    except ValueError:
        return DEFAULT_MAX_WIDTH


def type_width(t: exp.DataType | None) -> int | None:
    if not isinstance(t, exp.DataType):
        return None
    return _TYPE_WIDTH.get(t.this)


class Columns:
    """Fixed widths for a result's columns (an optional leading ``op`` column)."""

    def __init__(self, names: Sequence[str], types: Sequence[exp.DataType | None] = (), limit: int = DEFAULT_MAX_WIDTH, op: bool = False):
        self.names = list(names)
        self.limit = limit
        self.op = op
        types = list(types) + [None] * (len(self.names) - len(types))
        self.types = types  # a ROW prints its values, an OBJECT its fields too (repl.client.format_value)
        self.widths = []
        self.fixed = []
        for name, t in zip(self.names, types, strict=True):
            w = type_width(t)
            self.fixed.append(w is not None)
            self.widths.append(min(limit, max(len(name), w or len(name))))

    def fit(self, rows: Sequence[Sequence[object]]) -> None:
        """Widen string columns for these rows (before anything is printed)."""
        for row in rows:
            for i, v in enumerate(row[: len(self.widths)]):
                if not self.fixed[i]:
                    self.widths[i] = min(self.limit, max(self.widths[i], len(format_value(v, t=self.types[i]))))

    def cells(self, row: Sequence[object]) -> list[str]:
        return [format_value(v, self.widths[i], self.types[i]) for i, v in enumerate(row[: len(self.widths)])]

    def line(self, row: Sequence[object], kind: str | None = None) -> str:
        """One row as ``| +I | a   | 42 |`` (numbers right-aligned)."""
        parts = []
        if self.op:
            parts.append((kind or "").ljust(2))
        for i, (cell, v) in enumerate(zip(self.cells(row), row, strict=True)):
            numeric = isinstance(v, (int, float)) and not isinstance(v, bool)
            parts.append(cell.rjust(self.widths[i]) if numeric else cell.ljust(self.widths[i]))
        return "| " + " | ".join(parts) + " |"

    def header(self) -> str:
        parts = (["op"] if self.op else []) + [n[: self.widths[i]].ljust(self.widths[i]) for i, n in enumerate(self.names)]
        return "| " + " | ".join(parts) + " |"

    def border(self) -> str:
        widths = ([2] if self.op else []) + self.widths
        return "+" + "+".join("-" * (w + 2) for w in widths) + "+"
