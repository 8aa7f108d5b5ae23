"""A regular join's ON conjuncts on one side's fields become a filter on that side's input where
the join's result stays the same (planner/binder/join_filters.py, Flink's join-condition
push-down): the right's in an INNER, LEFT, semi or anti join, the left's in an INNER, RIGHT or
semi join; the preserved side's stay in the condition, as do conjuncts on both sides and calls
that differ call by call (RAND)."""

from __future__ import annotations

import pytest

from planner.logical.joins import Join
from planner.logical.operators import Calc, Node
from planner.logical.visit import distinct_nodes
from tests.planner.helpers import outcome

DDL = """
CREATE TABLE a (k BIGINT, x INT, s STRING) WITH ('connector' = 'datagen');
CREATE TABLE b (k BIGINT, y INT, t STRING) WITH ('connector' = 'datagen');
"""


def _join(sql: str) -> Join:
    analysis = outcome(DDL, sql).analysis
    assert analysis is not None and analysis.problems == ()
    (join,) = [n for n in distinct_nodes(analysis.plans) if isinstance(n, Join)]
    return join


def _filters(node: Node) -> list[str]:
    """The filters between a join and its input's scan, as SQL."""
    out = []
    while node.kind != "Scan":
        if isinstance(node, Calc) and node.condition is not None:
            out.append(node.condition.sql().replace('"', ""))
        node = node.inputs[0]
    return out


def _parts(sql: str) -> tuple[list[str], list[str], str]:
    join = _join(sql)
    assert join.condition is not None
    return _filters(join.left), _filters(join.right), join.condition.sql().replace('"', "")


ON = "a.k = b.k AND a.x > 1 AND b.y < 2 AND a.x < b.y"


@pytest.mark.parametrize(("kind", "left", "right"), [
    ("JOIN", True, True),
    ("LEFT JOIN", False, True),
    ("RIGHT JOIN", True, False),
    ("FULL JOIN", False, False),
])
def test_a_conjunct_on_the_side_that_cannot_be_padded_filters_that_side(kind, left, right):
    in_left, in_right, condition = _parts(f"SELECT a.s, b.t FROM a {kind} b ON {ON};")
    assert (in_left == ["x > 1"]) is left and ("x > 1" in condition) is not left
    assert (in_right == ["y < 2"]) is right and ("y < 2" in condition) is not right
    assert "x < y" in condition and "k = k" in condition.replace("$1", "")


def test_a_semi_join_filters_both_sides_and_an_anti_join_its_right():
    sub = "SELECT k FROM b WHERE b.y < 2 AND b.k = a.k AND a.x > 1"
    in_left, _, condition = _parts(f"SELECT a.s FROM a WHERE EXISTS ({sub});")
    assert in_left == ["x > 1"] and "x > 1" not in condition
    in_left, _, condition = _parts(f"SELECT a.s FROM a WHERE NOT EXISTS ({sub});")
    assert in_left == [] and "x > 1" in condition


def test_a_call_that_differs_call_by_call_stays_in_the_condition():
    _, in_right, condition = _parts("SELECT a.s, b.t FROM a JOIN b ON a.k = b.k AND b.y < RAND() * 10;")
    assert in_right == [] and "RAND" in condition.upper()
