"""Positioned errors for bad SQL and unknown names, printed the way compilers print them:

    q.sql:3:14: error: Unexpected token `FROM`
       3 | SELECT a, b, FROM t
         |              ^^^^
    hint: ...
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.source import SourceText, Span


# not frozen: Python sets __traceback__ on an exception that passes a `with` block
@dataclass(eq=False)
class SqlError(Exception):
    message: str
    source: SourceText
    span: Span
    hint: str | None = None
    code: str = "E001"  # E001 syntax, E002 unknown name, E003 invalid statement, E004 variable

    def __str__(self) -> str:
        return self.render()

    @property
    def line(self) -> int:
        return self.source.position(self.span.start).line

    @property
    def column(self) -> int:
        return self.source.position(self.span.start).column

    @property
    def end_line(self) -> int:
        return self.source.position(max(self.span.end - 1, self.span.start)).line

    @property
    def end_column(self) -> int:
        # inclusive end column, as editors and SARIF expect for a one-line range
        return self.source.position(max(self.span.end - 1, self.span.start)).column + 1

    def render(self, color: bool = False) -> str:
        pos = self.source.position(self.span.start)
        head = f"{self.source.name}:{pos.line}:{pos.column}: error: {self.message}"
        lines = [head]
        text = self.source.line_text(pos.line) if self.source.text else ""
        if text.strip():
            gutter = f"{pos.line:>4} | "
            width = self.span.end - self.span.start
            if self.end_line != pos.line or width <= 0:
                width = max(1, len(text) - pos.column + 1) if self.end_line != pos.line else 1
            caret = " " * (pos.column - 1) + "^" * max(1, width)
            if color:
                caret = f"\x1b[31m{caret}\x1b[0m"
            lines.append(gutter + text.expandtabs(1))
            lines.append(" " * (len(gutter) - 2) + "| " + caret)
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)


class SqlErrors(Exception):
    """Several positioned errors (lint reports them all; run stops at the first)."""

    def __init__(self, errors: list[SqlError]):
        self.errors = errors
        super().__init__("\n".join(e.render() for e in errors))
