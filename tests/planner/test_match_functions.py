"""Functions in MATCH_RECOGNIZE's DEFINE and MEASURES: a part the operator cannot evaluate that
reads one row (``A.name LIKE 'a%'``, ``UPPER(PREV(name))``) becomes a value Spark computes per
input row before the match (``MatchSpec.derived``), read as that row's column past its fields; a
measure of several rows' values comes out of the match as the values it reads, and Spark computes
it after (``MatchSpec.after``); in DEFINE such a function stays refused, positioned. An aggregate of an expression of one
variable's columns (``SUM(A.price * 2)``) aggregates such a value. Conformance k14, k15 and k16 compare
the rows with Flink's."""

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
    outcome = plan("A.price AS p", "A AS A.channel LIKE 'w%' AND A.price > PREV(price), B AS UPPER(PREV(channel)) = 'WEB'")
    assert outcome.analysis.problems == ()
    spec = match(outcome).spec
    assert spec is not None
    # the LIKE of the row tried, and all of B's condition (one row's: the row before), over the input's columns
    assert [d.sql() for d in spec.derived] == ['"channel" LIKE \'w%\'', 'UPPER("channel") = \'WEB\'']
    a, b = dict(spec.defines)["A"], dict(spec.defines)["B"]
    assert isinstance(a.tree, exp.And) and isinstance(a.tree.this, exp.Column)  # the LIKE: a read; the comparison stays
    width = 4  # ts, auction, price, channel
    assert {(n.kind, n.var, n.column, n.offset) for n in a.navs} == {(NavKind.LAST, None, width, 0), (NavKind.LAST, None, 2, 0), (NavKind.LAST, None, 2, 1)}
    assert [(n.kind, n.var, n.column, n.offset) for n in b.navs] == [(NavKind.LAST, None, width + 1, 1)]


def test_the_same_function_of_several_rows_is_computed_once() -> None:
    outcome = plan("CHAR_LENGTH(A.channel) AS a_len, CHAR_LENGTH(FIRST(B.channel)) AS b_len",
                   "B AS CHAR_LENGTH(B.channel) > A.price")
    spec = match(outcome).spec
    assert spec is not None and outcome.analysis.problems == ()
    assert [d.sql() for d in spec.derived] == ['LENGTH("channel")']
    (a_len,) = dict(spec.measures)["a_len"].navs  # (the read of the channel itself is dropped)
    (b_len,) = dict(spec.measures)["b_len"].navs
    assert (a_len.kind, a_len.var, a_len.column) == (NavKind.LAST, "A", 4)
    assert (b_len.kind, b_len.var, b_len.column) == (NavKind.FIRST, "B", 4)


def test_a_measure_of_several_rows_comes_out_as_its_reads_and_spark_computes_it_after_the_match() -> None:
    outcome = plan("CONCAT(A.channel, B.channel) AS path, A.price + B.price AS total", "B AS B.price > A.price")
    node = match(outcome)
    spec = node.spec
    assert spec is not None and outcome.analysis.problems == ()
    # the operator evaluates the sum; the CONCAT's two reads are measures of their own
    assert [n for n, _ in spec.measures] == ["__path$0", "__path$1", "total"]
    assert [(m.navs[0].var, m.navs[0].column) for _, m in spec.measures[:2]] == [("A", 3), ("B", 3)]
    ((name, expr),) = spec.after
    assert name == "path" and expr.sql() == 'CONCAT("__path$0", "__path$1")'
    assert [f.name for f in node.fields] == ["auction", "path", "total"]


def test_a_function_of_several_rows_in_define_is_refused_with_the_reason() -> None:
    (problem,) = plan("A.price AS p", "B AS CONCAT(A.channel, B.channel) = 'webapp'").analysis.problems
    assert problem.code == Code.MATCH_RECOGNIZE and "CONCAT" in problem.message and "several rows" in (problem.hint or "")


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
