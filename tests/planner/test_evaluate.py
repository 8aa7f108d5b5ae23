"""The changelog join's residual conditions, evaluated in Python (planner.logical.evaluate) with
SQL's three-valued logic."""

from __future__ import annotations

import pytest
from sqlglot import parse_one

from planner.logical.evaluate import compile_expression

T, F, N = True, False, None


@pytest.mark.parametrize(
    ("sql", "table"),
    [
        ("a AND b", {(T, T): T, (T, F): F, (F, T): F, (F, N): F, (N, F): F, (T, N): N, (N, T): N, (N, N): N}),
        ("a OR b", {(F, F): F, (T, F): T, (F, T): T, (T, N): T, (N, T): T, (F, N): N, (N, F): N, (N, N): N}),
        ("NOT a OR b IS NULL", {(T, T): F, (F, T): T, (N, T): N, (T, N): T}),
    ],
)
def test_and_or_not_follow_three_valued_logic(sql: str, table: dict) -> None:
    f = compile_expression(parse_one(sql), ["a", "b"])
    assert {row: f(row) for row in table} == table
