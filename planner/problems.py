"""Errors found while binding or defining objects, attached to a tree node; ``located`` turns
one into a positioned SqlError using the positions sqlglot kept on the node's tokens."""

from __future__ import annotations

from sqlglot import exp

from planner.errors import SqlError
from planner.source import SourceText, Span


class PlanningError(Exception):
    code = "E003"

    def __init__(self, message: str, node: exp.Expr | None = None, hint: str | None = None):
        super().__init__(message)
        self.message, self.node, self.hint = message, node, hint


class DefinitionError(PlanningError):
    """An invalid CREATE/ALTER (duplicate column, missing watermark column, ...)."""


class BindError(PlanningError):
    """An unknown table, column or function, or an invalid use of one."""

    code = "E002"


def node_span(node: exp.Expr | None, default: Span) -> Span:
    """The source range covered by the positioned tokens under ``node``."""
    if node is None:
        return default
    starts, ends = [], []
    for sub in node.walk():
        meta = sub.meta if hasattr(sub, "meta") else {}
        if "start" in meta:
            starts.append(meta["start"])
            ends.append(meta.get("end", meta["start"]) + 1)
    if not starts:
        return default
    return Span(min(starts), max(ends))


def located(err: PlanningError, source: SourceText, default: Span) -> SqlError:
    return SqlError(err.message, source, node_span(err.node, default), err.hint, code=err.code)
