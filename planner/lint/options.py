"""A CREATE TABLE's connector options, checked by lint where they are written: an unknown key
(with a did-you-mean), a missing required one, a value of the wrong type or not among its
choices, each an E003 finding at the `'key' = 'value'` pair (at the table's name when the pair is
not there: a missing option). The shell and `run` check the same options when a job reads or
writes the table, as Flink does; lint says it at the DDL, where the fix is."""

from __future__ import annotations

from sqlglot import TokenType, exp

from catalog import TableDef
from catalog.legacy_options import written_as
from catalog.options import validate_options
from planner.diagnostics import Category, Diagnostic, Severity
from planner.names import object_name
from planner.source import Span
from planner.statements.script import Statement
from planner.statements.session import Outcome, PlannerSession


def option_findings(session: PlannerSession, stmt: Statement, outcome: Outcome) -> list[Diagnostic]:
    tree = outcome.tree
    if not isinstance(tree, exp.Create) or tree.text("kind").upper() != "TABLE":
        return []
    target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    table = session.catalog.get_relation(object_name(target)) if target is not None else None
    if not isinstance(table, TableDef) or "${" in str(table.options):
        return []
    return [
        Diagnostic(
            code="E003", severity=Severity.ERROR, category=Category.BINDING, message=p.message,
            hint=f"did you mean '{p.suggestion}'?" if p.suggestion else None,
            source=stmt.source, span=_where(stmt, p.key),
        )
        for p in validate_options(table)
    ]


def _where(stmt: Statement, key: str) -> Span:
    """The pair that set ``key``: as written, or as Flink's legacy spelling the table was stored
    from; the statement when neither is there."""
    for written in (key, *written_as(key)):
        if (span := _pair(stmt, written)) is not None:
            return span
    return stmt.span


def _pair(stmt: Statement, key: str) -> Span | None:
    """Where `'key' = 'value'` is written in the statement (its last occurrence, the one in force)."""
    tokens = stmt.tokens
    found = None
    for i, tok in enumerate(tokens):
        if tok.token_type == TokenType.STRING and tok.text == key:
            end = tok.end
            if i + 2 < len(tokens) and tokens[i + 1].token_type == TokenType.EQ:
                end = tokens[i + 2].end
            found = Span(tok.start, end + 1)
    return found
