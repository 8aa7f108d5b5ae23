"""A window join of a window aggregation with the MAX (or MIN) of that same aggregation per window
becomes a window Top-1 with ties (planner/logical/window_argmax.py): Nexmark q5's "hot items"
shape. Anything that is not exactly that stays a join. Spark runs both forms with the same rows
(tests/sqlengine/test_window_argmax.py)."""

from __future__ import annotations

import pytest

from planner.logical.joins import Join, WindowJoin
from planner.logical.operators import TopN
from planner.logical.specs import AggFunc
from tests.planner.helpers import outcome

DDL = """
CREATE TABLE bids (item STRING, cat INT, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/bids', 'format' = 'json');
"""
COUNTS = """SELECT item, {value} AS v, window_start AS s, window_end AS e{extra}
  FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY item, window_start, window_end{extra}"""
Q5 = """SELECT A.item, A.v FROM ({left}) AS A
JOIN (SELECT {agg}(C.v) AS m, C.s, C.e{extra_select} FROM ({right}) AS C GROUP BY C.s, C.e{extra_select}) AS M
ON {condition};"""


def plan(agg: str = "MAX", condition: str = "A.s = M.s AND A.e = M.e AND A.v >= M.m", left_value: str = "COUNT(*)",
         right_value: str | None = None, extra: str = "", extra_select: str = ""):
    left = COUNTS.format(value=left_value, extra=extra)
    right = COUNTS.format(value=right_value or left_value, extra=extra)
    sql = Q5.format(left=left, right=right, agg=agg, condition=condition, extra_select=extra_select)
    result = outcome(DDL, sql)
    (root,) = result.plans
    return list(root.walk())


def rewritten(nodes) -> TopN | None:
    tops = [n for n in nodes if isinstance(n, TopN) and n.rule]
    return tops[0] if tops else None


def test_q5s_shape_becomes_a_window_top_one_with_ties() -> None:
    nodes = plan()
    top = rewritten(nodes)
    assert top is not None and not any(isinstance(n, WindowJoin) for n in nodes)
    assert (top.rank_func, top.n, top.partition_keys, top.order) == (AggFunc.RANK, 1, ("s", "e"), (("v", True),))
    assert top.window is not None and top.window.slide_ms == 2000
    # the window aggregation is planned once, and NULL values are left out before ranking
    assert sum(type(n).__name__ == "WindowAggregate" for n in nodes) == 1
    assert any("IS NULL" in n.describe() for n in nodes if type(n).__name__ == "Calc")


@pytest.mark.parametrize("condition", [
    "A.s = M.s AND A.e = M.e AND A.v = M.m",  # equal to the maximum
    "M.s = A.s AND M.e = A.e AND M.m <= A.v",  # written the other way round
])
def test_the_comparisons_that_keep_the_maximum(condition: str) -> None:
    assert rewritten(plan(condition=condition)) is not None


def test_min_keeps_the_smallest_and_other_group_keys_partition_too() -> None:
    top = rewritten(plan(agg="MIN", condition="A.s = M.s AND A.e = M.e AND A.v <= M.m"))
    assert top is not None and top.order == (("v", False),)
    nodes = plan(extra=", cat", extra_select=", C.cat", condition="A.s = M.s AND A.e = M.e AND A.cat = M.cat AND A.v >= M.m")
    keyed = rewritten(nodes)
    assert keyed is not None and set(keyed.partition_keys) == {"s", "e", "cat"}
    # a NULL key equals nothing in the join: its rows are left out, as a NULL value's are
    assert any("NOT `cat` IS NULL" in n.describe() for n in nodes if type(n).__name__ == "Calc")


@pytest.mark.parametrize("change", [
    {"condition": "A.s = M.s AND A.e = M.e AND A.v > M.m"},  # never true: not the maximum's rows
    {"agg": "MIN"},  # >= MIN keeps nearly every row
    {"condition": "A.s = M.s AND A.e = M.e AND A.v >= M.m AND A.item <> 'x'"},  # another condition
    {"condition": "A.s = M.s AND A.v >= M.m"},  # the window's end not equated
    {"right_value": "SUM(price)"},  # not the same aggregation on both sides
    {"extra": ", cat", "extra_select": ", C.cat", "condition": "A.s = M.s AND A.e = M.e AND A.v >= M.m"},  # a key not equated
])
def test_anything_else_stays_a_join(change: dict) -> None:
    nodes = plan(**change)
    assert rewritten(nodes) is None
    assert any(isinstance(n, Join) for n in nodes)  # a window join, or a regular one without the end
