"""Literals Flink's validator refuses (its parser accepts them): an exact number whose digits do
not fit in a BIGINT, and a DATE, TIME or TIMESTAMP literal that is not a valid value. A CAST of
the same string is not a literal: it fails, or gives NULL, only at run time."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession


def plan(sql: str):
    session = PlannerSession(Catalog.in_memory())
    (stmt,) = parse_script(sql).statements
    return session.execute(stmt)


@pytest.mark.parametrize(
    ("sql", "message", "at"),
    [
        ("SELECT 99999999999999999999", "Numeric literal '99999999999999999999' out of range", "99999999999999999999"),
        ("SELECT 12345678901234567890.5", "Numeric literal '12345678901234567890.5' out of range", "12345678901234567890.5"),
        ("SELECT TIMESTAMP '2020-13-45 00:00:00'", "Illegal TIMESTAMP literal '2020-13-45 00:00:00': not in format 'yyyy-MM-dd HH:mm:ss'", "'2020-13-45 00:00:00'"),
        ("SELECT DATE '2021-02-29'", "Illegal DATE literal '2021-02-29'", "'2021-02-29'"),
        ("SELECT DATE 'x'", "Illegal DATE literal 'x'", "'x'"),
        ("SELECT TIME '24:00:00'", "Illegal TIME literal '24:00:00'", "'24:00:00'"),
    ],
)
def test_invalid_literals_are_positioned_errors(sql, message, at):
    with pytest.raises(SqlError) as err:
        plan(sql)
    assert err.value.message.startswith(message)
    assert sql[err.value.span.start : err.value.span.end] == at


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 9223372036854775807, -9223372036854775808, 1.5e300, 123456789012345678.9",
        "SELECT TIMESTAMP '2020-01-02 03:04:05.123', TIMESTAMP '2020-01-02 03:04', DATE '2020-1-2', TIME '10:00'",
        "SELECT DATE '2024-02-29'",
        "SELECT CAST('x' AS DATE), CAST('2020-13-45' AS TIMESTAMP)",
    ],
)
def test_valid_literals_and_casts_of_any_string_bind(sql):
    assert plan(sql).plans
