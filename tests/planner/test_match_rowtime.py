"""MATCH_ROWTIME() is a time attribute, as in Flink: a MATCH_RECOGNIZE ordered by event time
gives it as a rowtime, and a window, a window Top-N or an interval join on it runs on sqlengine's
operators after the match (conformance k08-k13 compare the rows with Flink's); so does one on the time of an
OVER on event time (i09), whose rows come out as the watermark passes them too.
TIMESTAMP(3), as Flink types it, and no window can take it."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.check import Code
from planner.analysis.physical import Why
from planner.errors import SqlError
from planner.logical.fields import TimeKind
from planner.logical.joins import IntervalJoin
from planner.logical.operators import MatchRecognize, TopN, WindowAggregate
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), auction BIGINT, price BIGINT, pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE fees (ts TIMESTAMP(3), auction BIGINT, fee INT, PRIMARY KEY (auction) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""
# an OVER on event time: its rows come out as the watermark passes them, ts still a time attribute
OVER = ("CREATE TEMPORARY VIEW o AS SELECT ts, auction, SUM(price) OVER (PARTITION BY auction ORDER BY ts "
        "ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM bids;")
# an event-time temporal join: its rows leave transformWithState without Spark's watermark mark
TEMPORAL = ("CREATE TEMPORARY VIEW o AS SELECT b.ts, b.auction, f.fee AS s FROM bids b "
            "JOIN fees FOR SYSTEM_TIME AS OF b.ts AS f ON b.auction = f.auction;")


def _match(order: str) -> str:
    return (f"CREATE TEMPORARY VIEW m AS SELECT * FROM bids MATCH_RECOGNIZE (PARTITION BY auction ORDER BY {order} "
            "MEASURES A.price AS p, MATCH_ROWTIME() AS rt ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW "
            "PATTERN (A B) DEFINE B AS B.price > A.price);")


WINDOW = "SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE m, DESCRIPTOR(rt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;"


def plan(sql: str) -> Outcome:
    session = PlannerSession(Catalog.in_memory())
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


def test_match_rowtime_on_event_time_is_a_rowtime_and_a_window_on_it_runs_after_the_match() -> None:
    analysis = plan(_match("ts") + WINDOW).analysis
    assert analysis.problems == ()
    nodes = list(analysis.plans[0].walk())
    (match,) = [n for n in nodes if isinstance(n, MatchRecognize)]
    assert match.field("rt").time == TimeKind.ROWTIME and match.field("p").time is None
    (window,) = [n for n in nodes if isinstance(n, WindowAggregate)]
    physical = analysis.physical[window.node_id]
    assert physical.changelog and physical.why == Why.AFTER_CHANGELOG


def test_an_over_window_ordered_by_match_rowtime_runs_after_the_match() -> None:
    over = "SELECT p, SUM(p) OVER (ORDER BY rt RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS s FROM m;"
    assert plan(_match("ts") + over).analysis.problems == ()


def test_a_window_top_n_on_match_rowtime_runs_after_the_match() -> None:
    top = ("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY p DESC) AS rn "
           "FROM TABLE(TUMBLE(TABLE m, DESCRIPTOR(rt), INTERVAL '10' SECOND))) WHERE rn <= 2;")
    analysis = plan(_match("ts") + top).analysis
    assert analysis.problems == ()
    (rank,) = [n for n in analysis.plans[0].walk() if isinstance(n, TopN)]
    assert analysis.physical[rank.node_id].changelog


@pytest.mark.parametrize("kind", ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
def test_an_interval_join_on_match_rowtime_runs_after_the_match_on_event_time(kind: str) -> None:
    join = f"SELECT m.p FROM m {kind} bids b ON m.auction = b.auction AND b.ts BETWEEN m.rt - INTERVAL '5' SECOND AND m.rt;"
    analysis = plan(_match("ts") + join).analysis
    assert analysis.problems == ()
    (node,) = [n for n in analysis.plans[0].walk() if isinstance(n, IntervalJoin)]
    assert not node.on_proctime
    physical = analysis.physical[node.node_id]
    assert physical.changelog and physical.why == Why.AFTER_CHANGELOG


JOIN_O = "SELECT o.s FROM o, bids b WHERE o.auction = b.auction AND b.ts BETWEEN o.ts - INTERVAL '5' SECOND AND o.ts;"
WINDOW_O = "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE o, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;"


@pytest.mark.parametrize("query", [JOIN_O, WINDOW_O], ids=["interval-join", "window"])
def test_an_event_time_operator_runs_after_an_over_on_event_time(query: str) -> None:
    """Like a match, an OVER on event time emits each row once the watermark passes it (conformance i09)."""
    analysis = plan(OVER + query).analysis
    assert analysis.problems == ()
    (node,) = [n for n in analysis.plans[0].walk() if isinstance(n, (IntervalJoin, WindowAggregate))]
    assert analysis.physical[node.node_id].why == Why.AFTER_CHANGELOG


@pytest.mark.parametrize("query", [JOIN_O, WINDOW_O], ids=["interval-join", "window"])
def test_an_event_time_operator_after_a_temporal_join_is_still_refused(query: str) -> None:
    (problem,) = plan(TEMPORAL + query).analysis.problems
    assert problem.code == Code.AFTER_CHANGELOG and "TemporalJoin" in problem.message


def test_match_rowtime_on_processing_time_is_no_time_attribute() -> None:
    with pytest.raises(SqlError, match="`rt` is not a time attribute"):
        plan(_match("pt") + WINDOW)




@pytest.mark.parametrize(("condition", "bound"), [
    ("b.ts > o.ts AND b.ts <= o.ts + INTERVAL '3' SECOND", (-3000, -1)),
    ("b.ts >= o.ts AND b.ts < o.ts + INTERVAL '3' SECOND", (-2999, 0)),
    ("b.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts", (0, 1000)),
])
def test_an_interval_bound_is_exact_in_milliseconds_strict_comparisons_included(condition: str, bound: tuple[int, int]) -> None:
    """The changelog interval join decides on the bound alone (o.ts BETWEEN b.ts + lower AND
    b.ts + upper): a strict comparison is the next millisecond in (conformance i11)."""
    analysis = plan(OVER + f"SELECT o.s FROM o JOIN bids b ON o.auction = b.auction AND {condition};").analysis
    (node,) = [n for n in analysis.plans[0].walk() if isinstance(n, IntervalJoin)]
    assert (node.lower_ms, node.upper_ms) == bound
