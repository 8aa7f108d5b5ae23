"""The changelog join's residual conditions and MATCH_RECOGNIZE's DEFINE and MEASURES across rows,
evaluated in Python (planner.logical.evaluate) with SQL's three-valued logic."""

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


@pytest.mark.parametrize(
    ("sql", "table"),
    [
        ("ABS(a - b)", {(3, 5): 2, (5, 3): 2, (N, 3): N}),
        ("COALESCE(a, b, 0)", {(1, 2): 1, (N, 2): 2, (N, N): 0}),
        ("CASE WHEN a > b THEN a WHEN b IS NULL THEN -1 ELSE b END", {(3, 1): 3, (1, 3): 3, (1, N): -1, (N, 1): 1}),
        ("CASE WHEN a > b THEN 'up' END", {(3, 1): "up", (1, 3): N, (N, 1): N}),
        ("CASE a WHEN 1 THEN 'one' WHEN b THEN 'b' ELSE 'other' END", {(1, 1): "one", (2, 2): "b", (2, 3): "other", (N, N): "other"}),
        ("IF(a > b, a, b)", {(3, 1): 3, (1, 3): 3, (N, 3): 3}),
    ],
)
def test_abs_coalesce_case_and_if_as_flink_evaluates_them(sql: str, table: dict) -> None:
    """A NULL condition is not TRUE: CASE falls through to the next branch, IF takes its else."""
    f = compile_expression(parse_one(sql), ["a", "b"])
    assert {row: f(row) for row in table} == table
