"""Diagnostics are data: a stable code, severity, category, message, hint and, where there is
one, a concrete rewrite. ``str(d)`` is the one-line compiler form ``path:line:col: CODE message``."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from planner.logical.specs import OperatorKind
from planner.source import SourceText, Span


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Category(StrEnum):
    UNBOUNDED_STATE = "unbounded-state"
    CORRECTNESS = "correctness"
    NONDETERMINISM = "nondeterminism"
    UNSUPPORTED = "unsupported"
    SYNTAX = "syntax"
    BINDING = "binding"
    PERFORMANCE = "performance"
    INTERNAL = "internal"  # E999: a defect of ours, reported where it happened


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: Severity
    category: Category
    message: str
    hint: str | None = None
    rewrite: str | None = None  # concrete SQL (or setting) that removes the finding
    source: SourceText | None = field(default=None, repr=False, compare=False)
    span: Span | None = None
    operator: OperatorKind | None = None  # the plan operator the finding is about
    node_id: int | None = None  # ... and its node (Node.node_id; EXPLAIN JSON's "n<id>")

    @property
    def path(self) -> str:
        return self.source.name if self.source is not None else "<input>"

    def _pos(self, offset: int) -> tuple[int, int]:
        if self.source is None:
            return (1, 1)
        p = self.source.position(offset)
        return (p.line, p.column)

    @property
    def line(self) -> int:
        return self._pos(self.span.start)[0] if self.span else 1

    @property
    def column(self) -> int:
        return self._pos(self.span.start)[1] if self.span else 1

    @property
    def end_line(self) -> int:
        return self._pos(max(self.span.end - 1, self.span.start))[0] if self.span else self.line

    @property
    def end_column(self) -> int:
        return self._pos(max(self.span.end - 1, self.span.start))[1] + 1 if self.span else self.column

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.code} {self.message}"

    def render(self) -> str:
        lines = [f"{self.severity.value.upper()} {self.code} [{self.category.value}] {self.message}"]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        if self.rewrite:
            lines.append("  rewrite:")
            lines.extend("    " + ln for ln in self.rewrite.splitlines())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "severity": self.severity.value,
            "category": self.category.value,
            "message": self.message,
            "hint": self.hint,
            "rewrite": self.rewrite,
            "operator": self.operator.value if self.operator is not None else None,
            "node": f"n{self.node_id}" if self.node_id is not None else None,
        }
