"""INTERSECT / EXCEPT [ALL] and scalar subqueries bind, with their state verdicts; what cannot run
exactly is refused with a positioned error. Their rows are checked against Flink by the
conformance suite (tests/conformance/queries/h0*.sql)."""

from __future__ import annotations

import pytest

from planner.analysis.state.facts import Growth
from planner.errors import SqlError
from planner.logical.joins import Join, JoinKind
from planner.logical.operators import Correlate, GroupAggregate
from tests.planner.helpers import outcome

DDL = """
CREATE TABLE t (a INT, b INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE u (x BIGINT, y INT) WITH ('connector' = 'datagen');
"""


def run(sql: str):
    return outcome(DDL, sql)


@pytest.mark.parametrize(
    ("op", "replicated"), [("INTERSECT", False), ("EXCEPT", False), ("INTERSECT ALL", True), ("EXCEPT ALL", True)]
)
def test_set_difference_is_one_aggregation_of_both_inputs(op, replicated):
    outcome = run(f"SELECT a, b FROM t {op} SELECT y, CAST(x AS INT) FROM u;")
    (plan,) = outcome.plans
    assert [f.name for f in plan.fields] == ["a", "b"]
    aggs = [n for n in plan.walk() if isinstance(n, GroupAggregate)]
    assert len(aggs) == 1 and aggs[0].set_operation == op.split()[0] and aggs[0].keys == ("a", "b")
    assert any(isinstance(n, Correlate) for n in plan.walk()) == replicated
    (info,) = outcome.analysis.state
    assert info.verdict.value == "unbounded" and info.parts[0].growth == Growth.KEYS
    (se103,) = [d for d in outcome.analysis.diagnostics if d.code == "SE103"]
    assert se103.message.startswith(f"{op.split()[0]} keeps every distinct row (a, b) of both inputs")


def test_set_difference_needs_as_many_columns_on_both_sides():
    with pytest.raises(SqlError, match="EXCEPT inputs have 2 and 1 columns"):
        run("SELECT a, b FROM t EXCEPT SELECT y FROM u;")


def test_except_filters_its_aggregation_so_it_runs_as_a_changelog_operator():
    outcome = run("SELECT a FROM t EXCEPT SELECT y FROM u;")
    (agg,) = [n for n in outcome.plans[0].walk() if isinstance(n, GroupAggregate)]
    physical = outcome.analysis.physical_of(agg)
    assert physical.changelog and physical.why.name == "FILTERED"


def test_having_that_an_update_can_leave_runs_as_a_changelog_operator():
    outcome = run("SELECT a, COUNT(*) FROM t GROUP BY a HAVING COUNT(*) < 3;")
    (agg,) = [n for n in outcome.plans[0].walk() if isinstance(n, GroupAggregate)]
    assert outcome.analysis.physical_of(agg).why.name == "FILTERED"
    on_key = run("SELECT a, COUNT(*) FROM t GROUP BY a HAVING a > 3;")
    (agg,) = [n for n in on_key.plans[0].walk() if isinstance(n, GroupAggregate)]
    assert not on_key.analysis.physical_of(agg).changelog


def test_a_scalar_subquery_is_a_left_join_with_its_one_row():
    outcome = run("SELECT a, (SELECT MAX(b) FROM t) AS top, (SELECT MIN(y) FROM u) FROM t WHERE b > (SELECT AVG(b) FROM t);")
    (plan,) = outcome.plans
    assert [f.name for f in plan.fields] == ["a", "top", "EXPR$2"]
    joins = [n for n in plan.walk() if isinstance(n, Join)]
    assert len(joins) == 3 and all(j.join_kind == JoinKind.LEFT and not j.equi_keys for j in joins)
    # each join keeps every outer row, but of the subquery only its one row
    for info in outcome.analysis.state:
        if isinstance(info.node, Join):
            left, right = info.parts
            assert (left.growth, right.growth) == (Growth.ROWS, Growth.NONE)


def test_star_does_not_expand_a_scalar_subquerys_column():
    (plan,) = run("SELECT * FROM t WHERE a = (SELECT MIN(a) FROM t);").plans
    assert [f.name for f in plan.fields] == ["a", "b", "ts"]


@pytest.mark.parametrize(
    ("sql", "message", "where"),
    [
        ("SELECT a FROM t WHERE b > (SELECT b FROM t);", "may return more than one row", "b FROM t"),
        ("SELECT a FROM t WHERE b > (SELECT a, b FROM t LIMIT 1);", "exactly one column, not 2", "a, b FROM t LIMIT 1"),
        (
            "SELECT a FROM t AS o WHERE b > (SELECT MAX(b) FROM t AS i WHERE i.a = o.a);",
            "reads `o.a` of the outer query: correlated scalar subqueries are not supported yet", "o.a",
        ),
    ],
)
def test_scalar_subqueries_that_cannot_run_exactly_are_positioned_errors(sql, message, where):
    with pytest.raises(SqlError) as err:
        run(sql)
    assert message in err.value.message
    text = err.value.source.text
    assert text[err.value.span.start : err.value.span.end] == where


def test_a_scalar_subquery_with_limit_1_is_accepted():
    (plan,) = run("SELECT a FROM t WHERE b > (SELECT b FROM t ORDER BY ts LIMIT 1);").plans
    assert any(isinstance(n, Join) for n in plan.walk())
