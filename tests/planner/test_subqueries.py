"""Subquery predicates bind to semi and anti joins as Flink rewrites them: [NOT] EXISTS with
correlated conditions (local ones filter the subquery), and a null-aware NOT IN."""

from __future__ import annotations

import pytest

from planner.errors import SqlError
from tests.planner import helpers

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), auction BIGINT, channel STRING, price BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE auctions (id BIGINT NOT NULL, category INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def plan(sql: str) -> str:
    return helpers.explain(DDL, sql).split("== State ==")[0]


def test_not_exists_is_an_anti_join_on_the_correlated_condition() -> None:
    text = plan("SELECT id FROM auctions a WHERE NOT EXISTS "
                "(SELECT 1 FROM bids b WHERE b.auction = a.id AND b.channel = 'app')")
    assert "RegularJoin(joinType=[ANTI], where=[`auction` = `id`])" in text
    # the local condition filters the subquery, which keeps only the column the join reads
    assert "Calc(select=[auction], where=[`channel` = 'app'])" in text


def test_exists_with_unqualified_names_resolves_inside_first() -> None:
    text = plan("SELECT id FROM auctions WHERE EXISTS (SELECT * FROM bids WHERE auction = id AND price > 10)")
    assert "RegularJoin(joinType=[SEMI], where=[`auction` = `id`])" in text
    assert "where=[`price` > 10]" in text


@pytest.mark.parametrize(
    ("sub", "message"),
    [
        ("SELECT COUNT(*) FROM bids WHERE auction = id", "An EXISTS subquery with aggregates is not supported"),
        ("SELECT auction FROM bids GROUP BY auction", "An EXISTS subquery with GROUP BY is not supported"),
    ],
)
def test_an_exists_subquery_it_cannot_rewrite_is_a_positioned_error(sub: str, message: str) -> None:
    with pytest.raises(SqlError) as err:
        plan(f"SELECT id FROM auctions WHERE EXISTS ({sub})")
    assert message in str(err.value)
    assert ":6:" in str(err.value)  # on the EXPLAIN's line, at the subquery


def test_not_in_is_null_aware_where_a_side_can_be_null() -> None:
    # category and CAST(auction ...) may be NULL: NULL NOT IN (...) is unknown, as is x NOT IN (.., NULL)
    text = plan("SELECT id FROM auctions WHERE category NOT IN (SELECT CAST(auction AS INT) FROM bids)")
    assert "joinType=[ANTI], where=[`category` = `EXPR$0` OR `category` IS NULL OR `EXPR$0` IS NULL]" in text


def test_not_in_of_columns_that_cannot_be_null_is_a_plain_anti_join() -> None:
    text = plan("SELECT category FROM auctions WHERE id NOT IN (SELECT id FROM auctions WHERE category = 1)")
    assert "joinType=[ANTI], where=[`id` = `id$1`])" in text


def test_in_stays_a_semi_join_on_equality() -> None:
    text = plan("SELECT id FROM auctions WHERE category IN (SELECT CAST(auction AS INT) FROM bids)")
    assert "joinType=[SEMI], where=[`category` = `EXPR$0`])" in text


def test_not_in_knows_an_outer_join_pads_with_nulls() -> None:
    # id is NOT NULL in auctions, but the LEFT JOIN pads it with NULL for bids without an auction
    text = plan("SELECT category FROM auctions WHERE id NOT IN "
                "(SELECT x.id FROM bids b LEFT JOIN auctions x ON b.auction = x.id)")
    assert "joinType=[ANTI], where=[`id` = `id$1` OR `id$1` IS NULL])" in text


def test_an_unqualified_name_in_exists_is_the_subquerys_own_column_first() -> None:
    # price is in both bids and the outer auctions2: inside the subquery it is bids.price
    ddl_extra = "SELECT id FROM auctions2 a WHERE EXISTS (SELECT 1 FROM bids WHERE auction = a.id AND price > a.price)"
    text = helpers.explain(DDL + "CREATE TABLE auctions2 (id BIGINT, price BIGINT) WITH ('connector' = 'datagen');\n", ddl_extra)
    assert "joinType=[SEMI], where=[`auction` = `id` AND `price$1` > `price`])" in text


def test_a_time_bounded_not_exists_is_a_regular_anti_join() -> None:
    # Flink's interval join is inner or outer only: a semi or anti join with a time bound is a
    # regular one (it was an interval anti join, refused on Spark)
    text = plan("SELECT id FROM auctions a WHERE NOT EXISTS (SELECT 1 FROM bids b "
                "WHERE b.auction = a.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' MINUTE)")
    assert "RegularJoin(joinType=[ANTI]" in text
