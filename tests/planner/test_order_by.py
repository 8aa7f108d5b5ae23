"""ORDER BY may name a column of the FROM clause that the SELECT list leaves out, or an
expression, as in Flink (found by the conformance suite: `ORDER BY price DESC, ts LIMIT 5`): it
is computed under a hidden name, sorted on, and projected away again."""

from __future__ import annotations

import pytest

from planner.errors import SqlError
from tests.planner import helpers

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), auction BIGINT, price BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def explain(sql: str, mode: str = "streaming") -> str:
    return helpers.explain(DDL, sql, mode).split("== State ==")[0]


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_order_by_a_column_left_out_of_the_select_list(mode: str) -> None:
    plan = explain("SELECT auction FROM bids ORDER BY price DESC, ts LIMIT 5", mode)
    lines = [line.strip() for line in plan.splitlines()]
    assert "Calc(select=[auction])" in lines[1]  # the output: only what the SELECT list names
    assert any(line.startswith("└─ Sort(orderBy=[$order0 DESC, $order1 ASC], limit=5)") for line in lines)
    assert any("Calc(select=[auction, `price` AS $order0, `ts` AS $order1])" in line for line in lines)


def test_order_by_an_expression_and_an_output_alias() -> None:
    plan = explain("SELECT auction AS a, price FROM bids ORDER BY price * -1, a LIMIT 2")
    assert "Sort(orderBy=[$order0 ASC, a ASC], limit=2)" in plan
    assert "`price` * -1 AS $order0" in plan


def test_an_output_column_is_not_computed_twice() -> None:
    plan = explain("SELECT auction, price FROM bids ORDER BY price LIMIT 2")
    assert "$order" not in plan


def test_an_unknown_order_column_is_a_positioned_error() -> None:
    with pytest.raises(SqlError) as err:
        explain("SELECT auction FROM bids ORDER BY nope LIMIT 2")
    assert "Unknown column `nope`" in str(err.value)


def test_order_by_a_position_of_the_select_list() -> None:
    plan = explain("SELECT auction, price FROM bids ORDER BY 2 DESC, 1 LIMIT 3")
    assert "Sort(orderBy=[price DESC, auction ASC], limit=3)" in plan
    assert "$order" not in plan  # not a constant to sort by


def test_a_position_beyond_the_select_list_is_a_positioned_error() -> None:
    with pytest.raises(SqlError) as err:
        explain("SELECT auction FROM bids ORDER BY 2 LIMIT 2")
    assert "ORDER BY position 2 is not in the SELECT list (1 to 1)" in str(err.value)


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_order_by_and_limit_after_a_union_are_the_unions(mode: str) -> None:
    plan = explain("SELECT auction, price FROM bids UNION ALL SELECT auction, price FROM bids ORDER BY price DESC LIMIT 3", mode)
    lines = [line.strip() for line in plan.splitlines()]
    assert lines[1].startswith("Sort(orderBy=[price DESC], limit=3)")  # they were dropped
    assert any(line.startswith("└─ Union(") for line in lines)
