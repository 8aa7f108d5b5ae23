"""Shared by the planner tests: a statement's outcome, or EXPLAIN of a query, after some DDL, in a
fresh in-memory catalog."""

from __future__ import annotations

from catalog import Catalog
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession


def outcome(ddl: str, sql: str) -> Outcome:
    """The outcome of the last statement of ``ddl + sql``, each run in order (errors raise)."""
    session = PlannerSession(Catalog.in_memory())
    last = None
    for stmt in parse_script(ddl + sql).statements:
        last = session.execute(stmt)
    assert last is not None
    return last


def explain(ddl: str, sql: str, mode: str = "streaming") -> str:
    """The text EXPLAIN prints for ``sql`` in ``mode``, after ``ddl``."""
    session = PlannerSession(Catalog.in_memory())
    session.settings["execution.runtime-mode"] = mode
    outcome = None
    for stmt in parse_script(ddl + "EXPLAIN " + sql).statements:
        outcome = session.execute(stmt)
    assert outcome is not None and outcome.text
    return outcome.text
