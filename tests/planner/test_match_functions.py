"""Functions in MATCH_RECOGNIZE's DEFINE and MEASURES: a part of a DEFINE the operator cannot
evaluate that reads the row tried (``A.name LIKE 'a%'`` in A's) becomes a value Spark computes per
input row before the match (``MatchSpec.derived``), read as that row's column past its fields; of
another row (which may be missing) it stays refused, positioned. A measure the operator cannot
evaluate comes out of the match as the values it reads, and Spark computes it after
(``MatchSpec.after``). An aggregate of an expression of one variable's columns (``SUM(A.price *
2)``) aggregates such a value. Conformance k14 to k18 compare the rows with Flink's."""

from __future__ import annotations

import pytest
from sqlglot import exp

from catalog import Catalog
from planner.analysis.check import Code
from planner.errors import SqlError
from planner.logical.match import NavKind
from planner.logical.operators import MatchRecognize
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), auction BIGINT, price BIGINT, channel STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def plan(measures: str, define: str) -> Outcome:
    sql = (f"SELECT * FROM bids MATCH_RECOGNIZE (PARTITION BY auction ORDER BY ts MEASURES {measures} "
           f"ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE {define});")
    session = PlannerSession(Catalog.in_memory())
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


def match(outcome: Outcome) -> MatchRecognize:
    (node,) = [n for n in outcome.analysis.plans[0].walk() if isinstance(n, MatchRecognize)]
    return node


def test_a_function_of_the_row_tried_is_computed_before_the_match_and_read_as_its_column() -> None:
    outcome = plan("A.price AS p", "A AS A.channel LIKE 'w%' AND A.price > PREV(price), B AS CHAR_LENGTH(channel) > A.price")
    assert outcome.analysis.problems == ()
    spec = match(outcome).spec
    assert spec is not None
    # the LIKE of A's row tried and the length of B's, over the input's columns, each once
    assert [d.sql() for d in spec.derived] == ['"channel" LIKE \'w%\'', 'LENGTH("channel")']
    a, b = dict(spec.defines)["A"], dict(spec.defines)["B"]
    assert isinstance(a.tree, exp.And) and isinstance(a.tree.this, exp.Column)  # the LIKE: a read; the comparison stays
    width = 4  # ts, auction, price, channel
    assert {(n.kind, n.var, n.column, n.offset) for n in a.navs} == {(NavKind.LAST, None, width, 0), (NavKind.LAST, None, 2, 0), (NavKind.LAST, None, 2, 1)}
    assert {(n.var, n.column) for n in b.navs} == {(None, width + 1), ("A", 2)}


@pytest.mark.parametrize("define", ["UPPER(PREV(channel)) = 'WEB'", "CHAR_LENGTH(A.channel) > 2", "CONCAT(A.channel, B.channel) = 'webapp'"])
def test_a_function_of_another_row_in_define_is_refused_as_that_row_may_be_missing(define: str) -> None:
    """A missing row reads NULL, and a function such as COALESCE gives a value for NULL: computed
    before the match it would be NULL instead, so only the row tried (which exists) is lifted."""
    (problem,) = plan("A.price AS p", f"B AS {define}").analysis.problems
    assert problem.code == Code.MATCH_RECOGNIZE


def test_a_measure_the_operator_cannot_evaluate_is_computed_after_the_match_from_its_reads() -> None:
    """Each read comes out of the match (NULL for a missing row), and Spark computes the function
    on them, as Flink does: COALESCE(B.channel, 'none') of a match without B is 'none'."""
    outcome = plan("CHAR_LENGTH(A.channel) AS a_len, COALESCE(UPPER(FIRST(B.channel)), 'none') AS b_up, A.price AS p",
                   "B AS B.price > A.price")
    spec = match(outcome).spec
    assert spec is not None and outcome.analysis.problems == () and spec.derived == ()
    assert [n for n, _ in spec.measures] == ["__a_len$0", "__b_up$0", "p"]
    assert [(m.navs[0].kind, m.navs[0].var) for _, m in spec.measures[:2]] == [(NavKind.LAST, "A"), (NavKind.FIRST, "B")]
    assert [(n, e.sql()) for n, e in spec.after] == [("a_len", 'LENGTH("__a_len$0")'),
                                                      ("b_up", 'COALESCE(UPPER("__b_up$0"), \'none\')')]


def test_the_reads_of_a_measure_are_named_apart_from_every_measure() -> None:
    outcome = plan("CONCAT(A.channel, B.channel) AS c, A.price AS `__c$0`", "B AS B.price > A.price")
    spec = match(outcome).spec
    assert spec is not None and outcome.analysis.problems == ()
    names = [n for n, _ in spec.measures]
    assert len(set(names)) == len(names) and "__c$0" in names and "__c_$0" in names


def test_an_aggregate_of_an_expression_of_one_variable_aggregates_its_rows_values() -> None:
    outcome = plan("SUM(A.price * 2) AS s, MAX(CHAR_LENGTH(channel)) AS longest", "B AS B.price > AVG(A.price * 2)")
    spec = match(outcome).spec
    assert spec is not None and outcome.analysis.problems == ()
    assert [d.sql() for d in spec.derived] == ['"price" * 2', 'LENGTH("channel")']
    (s,), (longest,) = (m.navs for _, m in spec.measures)
    assert (s.kind, s.var, s.column, s.func) == (NavKind.AGG, "A", 4, "SUM")
    assert (longest.kind, longest.var, longest.column, longest.func) == (NavKind.AGG, None, 5, "MAX")  # every row of the match
    (avg,) = [n for n in dict(spec.defines)["B"].navs if n.kind == NavKind.AGG]
    assert (avg.var, avg.column, avg.func) == ("A", 4, "AVG")


def test_an_aggregate_of_several_variables_is_refused_as_flink_refuses_it() -> None:
    with pytest.raises(SqlError, match="must be applied to a single pattern variable"):
        plan("AVG(A.price * B.price) AS s", "B AS B.price > A.price")
