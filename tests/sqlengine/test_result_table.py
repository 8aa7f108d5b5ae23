"""The materialized result of a continuous query (sqlengine.results.ResultTable): a retraction
takes back the row it names, even one holding a NaN (which equals nothing, not even itself)."""

from __future__ import annotations

import math

from planner.logical.changelog import RowKind
from sqlengine.results import ResultTable


def _code(kind: RowKind) -> int:
    return next(c for c in range(4) if RowKind.of_code(c) == kind)


def test_a_retraction_takes_back_a_row_holding_a_nan():
    result = ResultTable(("n", "hi"), changelog=True)
    result.apply(0, [(_code(RowKind.INSERT), 2, float("nan")), (_code(RowKind.INSERT), 3, 1.0)])
    # the retraction arrives as a NaN of its own, as Spark's rows give it
    result.apply(1, [(_code(RowKind.UPDATE_BEFORE), 2, float("nan")), (_code(RowKind.UPDATE_AFTER), 4, float("nan"))])
    rows = sorted(result.rows())
    assert [r[0] for r in rows] == [3, 4] and math.isnan(rows[1][1])
    assert len(result) == 2


def test_an_upsert_key_holding_a_nan_is_one_key():
    result = ResultTable(("k", "c"), ("k",))
    result.apply(0, [(float("nan"), 1)])
    result.apply(1, [(float("nan"), 2)])
    assert [r[1] for r in result.rows()] == [2]
