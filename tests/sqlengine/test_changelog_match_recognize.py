"""The MATCH_RECOGNIZE operator on its own (plain Python over Arrow), planned from SQL by the
binder. Every expected row here is what Flink 2.3 gave for the same pattern and rows (run through
PyFlink, streaming mode, parallelism 1): greedy loops keep a row they can take from the variable
after them; `?` is a plain optional variable; reluctant loops end as soon as they can; matches
come out in the order of their first rows, a complete one held back while an earlier partial
match may still complete; the AFTER MATCH strategies; WITHIN; Flink's default of SKIP TO NEXT
ROW; and the cases Flink refuses, refused here with its words."""

from __future__ import annotations

import datetime as dt
import pickle
from typing import Any

import pyarrow as pa
import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.logical.operators import MatchRecognize
from planner.logical.visit import distinct_nodes
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.match_recognize import MatchError
from sqlengine.changelog.match_recognize import MatchRecognize as Op
from tests.sqlengine.test_changelog_operators import out_schema

DDL = "CREATE TABLE t (ts TIMESTAMP(3), k INT, v INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');"
BASE = dt.datetime(2024, 1, 1)
BASE_MS = round((BASE - dt.datetime(1970, 1, 1)).total_seconds() * 1000)
IN = pa.schema([("kind", pa.int8()), ("t", pa.int64()), ("ts", pa.timestamp("ms")), ("k", pa.int32()), ("v", pa.int32())])


def node(sql: str) -> MatchRecognize:
    session = PlannerSession(Catalog.in_memory(), settings={})
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return next(n for n in distinct_nodes(outcome.plans) if isinstance(n, MatchRecognize))


def operator(sql: str) -> Op:
    n = node(sql)
    names = n.input.field_names()
    arrow = {"INT": pa.int32(), "BIGINT": pa.int64(), "TIMESTAMP(3)": pa.timestamp("ms")}
    fields = [(f.name, arrow[f.type.sql().upper()]) for f in n.fields]
    then_by = [(names.index(c), desc) for c, desc in n.then_by]
    types = [f.type for f in list(IN)[2:]]
    op = Op([names.index(k) for k in n.partition_keys], len(names), names.index(n.order_field), n.spec, out_schema(fields), then_by, types)
    return pickle.loads(pickle.dumps(op))  # as Spark ships it


def table(rows: list[tuple[float, int, int | None]]) -> pa.Table:
    data = [(INSERT, BASE_MS + round(s * 1000), BASE + dt.timedelta(seconds=s), k, v) for s, k, v in rows]
    return pa.Table.from_arrays([pa.array([d[i] for d in data], f.type) for i, f in enumerate(IN)], schema=IN)


def run(sql: str, batches: list[tuple[list[tuple[float, int, int | None]], float]]) -> list[tuple[Any, ...]]:
    """Per micro-batch its rows (seconds after BASE, k, v) and then the watermark (the same); the rows out.
    The state is pickled between calls, as Spark keeps it."""
    op = operator(sql)
    blob = pickle.dumps(op.new_state())
    out: list[tuple[Any, ...]] = []
    for rows, watermark in batches:
        state = pickle.loads(blob)
        changes = op.apply(state, [table(rows)], 0)
        fired = op.fire(state, BASE_MS + round(watermark * 1000), 0)
        assert set(changes.kinds + fired.kinds) <= {INSERT}
        out += changes.rows + fired.rows
        blob = pickle.dumps(state)
    return out


def query(pattern: str, skip: str | None, defines: str = "A AS v > 0, B AS v > 5", within: str = "") -> str:
    after = f"AFTER MATCH SKIP {skip}" if skip else ""
    return (
        "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES FIRST(A.v) AS fa, LAST(A.v) AS la, "
        f"COUNT(A.v) AS na, B.v AS bv ONE ROW PER MATCH {after} PATTERN ({pattern}){within} DEFINE {defines});"
    )


Q1 = [([(1, 1, 1), (2, 1, 6), (3, 1, 7), (4, 1, 2), (5, 1, 8)], 100)]  # v = 1, 6, 7, 2, 8


def m(a: tuple[int, ...], b: int) -> tuple[Any, ...]:
    """The expected row of a match in partition 1: A's rows (first, last, how many), B's."""
    return (1, a[0] if a else None, a[-1] if a else None, len(a), b)


@pytest.mark.parametrize(
    ("pattern", "skip", "expected"),
    [
        # a greedy loop keeps every row it can take: B (v > 5) never gets one (A is v > 0)
        *[(p, s, []) for p in ("A+ B", "A* B", "A{2,3} B", "A{2,} B", "A{0,2} B") for s in ("PAST LAST ROW", "TO NEXT ROW")],
        ("A? B", "PAST LAST ROW", [m((1,), 6), m((), 7), m((2,), 8)]),
        ("A? B", "TO NEXT ROW", [m((1,), 6), m((), 6), m((), 7), m((2,), 8), m((), 8)]),
        ("A*? B", "PAST LAST ROW", [m((1,), 6), m((), 7), m((2,), 8)]),
        ("A{2} B", "PAST LAST ROW", [m((1, 6), 7)]),
        ("A{2} B", "TO NEXT ROW", [m((1, 6), 7), m((7, 2), 8)]),
        ("A+? B", "PAST LAST ROW", [m((1,), 6), m((7, 2), 8)]),
        ("A+? B", "TO NEXT ROW", [m((1,), 6), m((6,), 7), m((7, 2), 8), m((2,), 8)]),
        ("A{2,3}? B", "PAST LAST ROW", [m((1, 6), 7)]),
        ("A{2,3}? B", "TO NEXT ROW", [m((1, 6), 7), m((6, 7, 2), 8), m((7, 2), 8)]),
        ("A+? B", None, [m((1,), 6), m((6,), 7), m((7, 2), 8), m((2,), 8)]),  # Flink's default: TO NEXT ROW
    ],
)
def test_quantifiers_and_skips_give_flinks_matches(pattern: str, skip: str | None, expected: list[tuple[Any, ...]]) -> None:
    assert run(query(pattern, skip), Q1) == expected


def test_a_greedy_loop_does_not_give_back_a_row_the_next_variable_needed() -> None:
    """No backtracking: A (v < 10) took 3, so 1, 6, 3 has no match (standard SQL would give A=1, B=6)."""
    defines = "A AS v < 10, B AS v > 5"
    assert run(query("A+ B", "PAST LAST ROW", defines), [([(1, 1, 1), (2, 1, 6), (3, 1, 3)], 100)]) == []
    assert run(query("A+ B", "PAST LAST ROW", defines), [([(1, 1, 1), (2, 1, 6), (3, 1, 3), (4, 1, 12)], 100)]) == [m((1, 6, 3), 12)]
    # its own aggregate counts the row it is trying: A = 1, 2, 4 (sum 7), then 8 lifts it to 15
    rows = [(i + 1, 1, 2**i) for i in range(6)]
    assert run(query("A+ B", "PAST LAST ROW", "A AS SUM(A.v) < 10"), [(rows, 100)]) == [m((1, 2, 4), 8)]


def test_a_match_is_held_back_while_an_earlier_one_may_complete() -> None:
    """v = 1, 5, 7, 15, 11: the match 5|7|15 is complete at 15, but the one from 1 is still open;
    it comes out first (at 11), then 5|7|15, with the time it came out at as MATCH_ROWTIME."""
    sql = (
        "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES X.v AS x, LAST(Y.v) AS y, Z.v AS z, "
        "MATCH_ROWTIME() AS mt ONE ROW PER MATCH AFTER MATCH SKIP {skip} PATTERN (X Y+? Z) "
        "DEFINE X AS v IN (1, 5), Z AS v = X.v + 10);"
    )
    rows = [([(101, 1, 1), (102, 1, 5), (103, 1, 7), (104, 1, 15), (105, 1, 11)], 200)]
    at = BASE + dt.timedelta(seconds=105)
    assert run(sql.format(skip="TO NEXT ROW"), rows) == [(1, 1, 15, 11, at), (1, 5, 7, 15, at)]
    assert run(sql.format(skip="PAST LAST ROW"), rows) == [(1, 1, 15, 11, at)]
    # the open partial match never ends (no WITHIN): the complete one is never let out
    assert run(sql.format(skip="TO NEXT ROW"), [(rows[0][0][:4], 200)]) == []


def test_within_is_strict_and_times_out_partial_matches() -> None:
    """A match spans less than WITHIN (last row's time - first's < 2 s); partial matches time out
    with the watermark, which then lets out a match held back for them at the watermark's time."""
    sql = query("A B", "PAST LAST ROW", "A AS v = 1, B AS v = 2", within=" WITHIN INTERVAL '2' SECOND")
    assert run(sql, [([(10, 1, 1), (12, 1, 2)], 100)]) == []
    assert run(sql, [([(10, 1, 1), (11.999, 1, 2)], 100)]) == [m((1,), 2)]
    held = (
        "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES X.v AS x, Z.v AS z, MATCH_ROWTIME() AS mt "
        "ONE ROW PER MATCH AFTER MATCH SKIP TO NEXT ROW PATTERN (X Y*? Z) WITHIN INTERVAL '10' SECOND "
        "DEFINE X AS v IN (1, 5), Z AS v = X.v + 10);"
    )
    # 5 then 15 complete while the match from 1 is open; the watermark times that one out at 11 s
    got = run(held, [([(1, 1, 1), (2, 1, 5), (3, 1, 15)], 3), ([], 11.5)])
    assert got == [(1, 5, 15, BASE + dt.timedelta(seconds=11.5))]
    # the bucket's timer is set for that time out (with no input after, it still goes out)
    op = operator(held)
    state = op.new_state()
    op.apply(state, [table([(1, 1, 1), (2, 1, 5), (3, 1, 15)])], 0)
    assert op.fire(state, BASE_MS + 3000, 0).rows == []
    assert op.next_time(state) == BASE_MS + 1000 + 10_000


def test_optional_variables_are_plain_and_a_trailing_one_ends_the_match_without_a_row() -> None:
    opt = "A AS v = 1, B AS v = 6"
    rows = [([(1, 1, 1), (2, 1, 6), (3, 1, 7)], 100)]
    measures = "MEASURES A.v AS a, B.v AS b, C.v AS c ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW"
    sql = "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts {m} PATTERN ({p}) DEFINE {d});"
    assert run(sql.format(m=measures, p="A B? C", d=opt), rows) == [(1, 1, None, 6)]
    assert run(sql.format(m=measures, p="A B* C", d=opt), rows) == [(1, 1, 6, 7)]
    assert run(sql.format(m=measures, p="A B*? C", d=opt), rows) == [(1, 1, None, 6)]
    trailing = "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS a, B.v AS b PATTERN (A B?) DEFINE A AS v > 0);"
    assert run(trailing, rows) == [(1, 1, None), (1, 6, None), (1, 7, None)]


def test_define_reads_the_match_as_flink_does() -> None:
    """v = 1, 2, 4, 8, ...; PATTERN (A{3} B), B's DEFINE reading the match in each way, TO NEXT ROW:
    the starts (A's first row) at which B's condition held on the row after three A rows."""
    rows = [([(i + 1, 1, 2**i) for i in range(8)], 100)]

    def starts(cond: str) -> list[int]:
        got = run(query("A{3} B", "TO NEXT ROW", f"B AS {cond}"), rows)
        return [r[1] for r in got]

    assert starts("v = 8") == [1]  # the row tried
    assert starts("FIRST(B.v) = B.v") == [1, 2, 4, 8, 16]
    assert starts("A.v = 4") == [1]  # A's last row
    assert starts("LAST(A.v, 1) = 2") == [1]
    assert starts("FIRST(A.v, 1) = 4") == [2]
    assert starts("SUM(A.v) = 7") == [1]  # A's rows only
    assert starts("SUM(v) = 15 AND COUNT(v) = 4") == [1]  # every row so far, the one tried too
    assert starts("AVG(A.v) = 2") == [1]  # 7 / 3, truncated as Flink's AVG of INT
    assert starts("PREV(v) = 4 AND PREV(v, 2) = 2") == [1]  # the rows before, in the match
    assert starts("PREV(A.v) = 2") == [1]  # Flink's PREV(A.v) is LAST(A.v, 1)
    assert starts("LAST(B.v, 1) IS NULL") == [1, 2, 4, 8, 16]


@pytest.mark.parametrize(("order", "expected"), [("ts", (3, 1, 2, 9)), ("ts, v", (1, 2, 3, 9)), ("ts, v DESC", (3, 2, 1, 9))])
def test_more_order_by_keys_order_the_rows_of_one_time(order: str, expected: tuple[int, ...]) -> None:
    """Rows 3, 1, 2 arrive at one time, then 9: arrival order, unless ORDER BY says more."""
    sql = (f"SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY {order} MEASURES A.v AS a, B.v AS b, C.v AS c, "
           "D.v AS d PATTERN (A B C D) DEFINE A AS v > 0);")
    assert run(sql, [([(1, 1, 3), (1, 1, 1), (1, 1, 2), (2, 1, 9)], 100)]) == [(1, *expected)]


def test_skip_to_the_first_row_of_a_match_fails_as_in_flink() -> None:
    all_true = "A AS v > 0"
    sql = "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS a AFTER MATCH SKIP TO {s} PATTERN (A B C) DEFINE {d});"
    with pytest.raises(MatchError, match="Could not skip to first element of a match"):
        run(sql.format(s="FIRST A", d=all_true), Q1)
    missing = sql.format(s="FIRST B", d="A AS v = 1, B AS v = 6").replace("(A B C)", "(A B? C)")
    with pytest.raises(MatchError, match=r"Could not skip to B\. No such element in the found match"):
        run(missing, Q1)  # A = 1, B took no row, C = 6
    assert [r[1] for r in run(sql.format(s="FIRST B", d=all_true), Q1)] == [1, 6, 7]
    assert [r[1] for r in run(sql.format(s="LAST C", d=all_true), Q1)] == [1, 7]
    assert [r[1] for r in run(sql.format(s="C", d=all_true), Q1)] == [1, 7]  # SKIP TO C is SKIP TO LAST C


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("A | B", "an alternation"),
        ("(A B)+ C", "a group of variables"),
        ("A B A", "Pattern variables must be unique"),
        ("A B+", "Greedy quantifiers are not allowed as the last element"),
        ("A B{2,3}", "Greedy quantifiers are not allowed as the last element"),
        ("A* B?", "Patterns that can produce empty matches are not supported"),
        ("A?? B", "Reluctant optional variables are not supported yet"),
        ("A{,2} B", "The from should be a positive number greater than 0"),
        ("A+ B? C", "Optional pattern cannot be preceded by greedy pattern"),
        ("PERMUTE(A, B)", "PERMUTE"),
    ],
)
def test_patterns_flink_refuses_are_refused(pattern: str, message: str) -> None:
    with pytest.raises(SqlError, match=message.replace("|", r"\|").replace("(", r"\(").replace("+", r"\+")):
        node(query(pattern, None))


@pytest.mark.parametrize(
    ("measure", "message"),
    [
        ("PREV(A.v) AS p", "PREV is not allowed in MEASURES"),
        ("CLASSIFIER() AS c", "CLASSIFIER"),
        ("SUM(DISTINCT A.v) AS s", "DISTINCT"),
        ("Q.v AS q", "`Q` is not a variable of the PATTERN"),
    ],
)
def test_measures_flink_refuses_are_refused(measure: str, message: str) -> None:
    sql = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES {measure} PATTERN (A B) DEFINE A AS v > 0);"
    with pytest.raises(SqlError, match=message):
        node(sql)


def test_prev_of_the_variable_being_defined_is_refused_as_in_flink() -> None:
    with pytest.raises(SqlError, match="physical offsets within partition"):
        node(query("A B", None, "B AS B.v > PREV(B.v)"))


def test_ordered_by_processing_time_rows_go_through_as_they_come_and_within_times_out_on_the_clock() -> None:
    """Each micro-batch's rows (one processing time) go through at once, in arrival order, with the
    clock the processor fires at standing for the watermark; a partial match times out on it."""
    ddl = "CREATE TABLE p (k INT, v INT, pt AS PROCTIME()) WITH ('connector' = 'datagen');"
    session = PlannerSession(Catalog.in_memory(), settings={})
    sql = ("SELECT * FROM p MATCH_RECOGNIZE (PARTITION BY k ORDER BY pt MEASURES A.v AS a, B.v AS b, MATCH_ROWTIME() AS mt, "
           "MATCH_PROCTIME() AS mp ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) WITHIN INTERVAL '2' SECOND "
           "DEFINE A AS v = 1, B AS v = 2);")
    *_, outcome = [session.execute(s) for s in parse_script(ddl + sql).statements]
    n = next(x for x in distinct_nodes(outcome.plans) if isinstance(x, MatchRecognize))
    assert [(f.name, f.type.sql()) for f in n.fields] == [("k", "INT"), ("a", "INT"), ("b", "INT"), ("mt", "TIMESTAMP(3)"),
                                                          ("mp", "TIMESTAMPLTZ(3)")]
    names = n.input.field_names()
    fields = [("k", pa.int32()), ("a", pa.int32()), ("b", pa.int32()), ("mt", pa.timestamp("ms")), ("mp", pa.timestamp("ms", tz="UTC"))]
    op = Op([names.index("k")], len(names), names.index("pt"), n.spec, out_schema(fields), (), (), processing=True)
    assert (op.timed, op.clock) == (False, "processing")
    schema = pa.schema([("kind", pa.int8()), ("t", pa.int64()), ("k", pa.int32()), ("v", pa.int32()), ("pt", pa.timestamp("ms", tz="UTC"))])

    def batch(at_s: float, values: list[int]) -> pa.Table:
        at = BASE + dt.timedelta(seconds=at_s)
        data = [[INSERT] * len(values), [BASE_MS + round(at_s * 1000)] * len(values), [1] * len(values), values,
                [at.replace(tzinfo=dt.UTC)] * len(values)]
        return pa.Table.from_arrays([pa.array(c, f.type) for c, f in zip(data, schema, strict=True)], schema=schema)

    state = op.new_state()
    op.apply(state, [batch(0, [1, 2, 1])], 0)  # A B matched in the batch; a new A waits
    out = op.fire(state, BASE_MS + 10, 0)  # the clock, a little after the batch's processing time
    assert [r[:3] for r in out.rows] == [(1, 1, 2)]
    assert out.rows[0][3] == out.rows[0][4] == BASE.replace(tzinfo=dt.UTC)  # the completing row's time
    assert op.next_time(state) == BASE_MS + 2000  # WITHIN: the open partial match times out then
    assert op.fire(state, BASE_MS + 2000, 0).rows == [] and op.entries(state) == 0
    op.apply(state, [batch(3, [2])], 0)  # a B alone: no match
    assert op.fire(state, BASE_MS + 3010, 0).rows == []
