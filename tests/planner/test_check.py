"""The checker (planner.check): every shape Spark cannot run is one coded problem, found from the
plan alone, and the same verdict reaches lint (SE301), EXPLAIN's advice and the job's start.
Each case here was once refused only at run time, or by a copy of the decision elsewhere."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.check import Code
from planner.script import parse_script
from planner.session import Outcome, PlannerSession

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), item STRING, price BIGINT, bidder BIGINT, url STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE items (ts TIMESTAMP(3), id STRING, cat INT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE odd (ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND + INTERVAL '1' SECOND * v)
  WITH ('connector' = 'datagen');
CREATE TABLE out_files (item STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json');
CREATE TABLE out_print (item STRING, n BIGINT) WITH ('connector' = 'print');
CREATE FUNCTION shout AS 'com.example.Shout';
"""
TUMBLE = "TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))"


def plan(sql: str, mode: str = "streaming") -> Outcome:
    session = PlannerSession(Catalog.in_memory(), settings={"execution.runtime-mode": mode})
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


CASES = {
    # the result's key is projected away: explain said "runs as written", the run refused it
    "root retracts": ("SELECT COUNT(*) AS c FROM bids GROUP BY item;", Code.ROOT_RETRACTS, "key (item)"),
    "session by other keys": (
        "SELECT cat, window_start, COUNT(*) FROM TABLE(SESSION(TABLE items PARTITION BY id, DESCRIPTOR(ts), "
        "INTERVAL '4' SECOND)) GROUP BY cat, window_start, window_end;",
        Code.SESSION_KEYS, "partitioned by exactly the GROUP BY keys",
    ),
    "session tvf alone": (
        "SELECT * FROM TABLE(SESSION(TABLE items PARTITION BY id, DESCRIPTOR(ts), INTERVAL '4' SECOND));",
        Code.SESSION_TVF_USE, "only under a window aggregation",
    ),
    "current watermark": ("SELECT CURRENT_WATERMARK(ts) FROM bids;", Code.NO_COUNTERPART, "CURRENT_WATERMARK()"),
    "split index by a column": ("SELECT SPLIT_INDEX(url, item, 1) FROM bids;", Code.LITERAL_SEPARATOR, "SPLIT_INDEX"),
    "split by a column": ("SELECT SPLIT(url, item) FROM bids;", Code.LITERAL_SEPARATOR, "SPLIT needs"),
    "user function": ("SELECT shout(item) FROM bids;", Code.USER_FUNCTION, "com.example.Shout"),
    "legacy cumulate": (
        "SELECT COUNT(*) FROM bids GROUP BY CUMULATE(ts, INTERVAL '5' SECOND, INTERVAL '20' SECOND);",
        Code.LEGACY_CUMULATE, "CUMULATE window table function",
    ),
    "window after distinct": (
        f"SELECT window_start, COUNT(*) FROM (SELECT DISTINCT item, window_start, window_end FROM {TUMBLE}) "
        "GROUP BY window_start, window_end;",
        Code.WINDOW_NOT_CARRIED, "Distinct",
    ),
    "updates into files": ("INSERT INTO out_files SELECT item, COUNT(*) FROM bids GROUP BY item;", Code.SINK_TAKES_APPENDS, "only appends"),
    "custom watermark": ("SELECT v FROM odd;", Code.WATERMARK_NOT_CONSTANT, "ts - INTERVAL"),
    "top-n": (
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 3;",
        Code.TOP_N_RETRACTS, "retractions",
    ),
    "state ttl": ("SELECT /*+ STATE_TTL('bids' = '1 h') */ item, COUNT(*) FROM bids GROUP BY item;", Code.STATE_TTL, "TTL"),
    "aggregate of aggregate": (
        "SELECT n, COUNT(*) FROM (SELECT item, COUNT(*) AS n FROM bids GROUP BY item) GROUP BY n;",
        Code.GROUP_AGG_UPDATING_INPUT, "updating input",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_every_refusal_is_one_coded_problem_that_lint_and_explain_report(name):
    sql, code, words = CASES[name]
    outcome = plan(sql)
    problems = outcome.analysis.problems
    assert problems, f"{name}: nothing refused"
    assert problems[0].code == code, [p.code for p in problems]
    assert words in problems[0].reason
    se301 = [d for d in outcome.analysis.diagnostics if d.code == "SE301"]
    assert se301 and problems[0].reason in se301[0].message
    assert se301[0].node_id == problems[0].node_id and se301[0].operator == problems[0].operator
    assert "No advice" not in str(outcome.analysis)


def test_a_problem_points_at_the_call_it_is_about():
    outcome = plan("SELECT item,\n  shout(url) AS s FROM bids;")
    (d,) = [d for d in outcome.analysis.diagnostics if d.code == "SE301"]
    lines = DDL.count("\n")
    assert (d.line - lines, d.column) == (2, 3)


def test_batch_mode_refuses_only_what_spark_batch_cannot_run():
    over = "SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bids;"
    assert plan(over, "batch").analysis.problems == ()
    assert [p.code for p in plan(over).analysis.problems] == [Code.OVER_STREAMING]
    assert [p.code for p in plan("SELECT shout(item) FROM bids;", "batch").analysis.problems] == [Code.USER_FUNCTION]
    se301 = [d for d in plan("SELECT shout(item) FROM bids;", "batch").analysis.diagnostics if d.code == "SE301"]
    assert se301 and se301[0].message.startswith("Cannot run on Spark (batch mode) as written")


def test_an_updating_query_into_a_sink_that_takes_updates_runs():
    assert plan("INSERT INTO out_print SELECT item, COUNT(*) FROM bids GROUP BY item;").analysis.problems == ()


def test_group_window_functions_outside_a_group_window_are_bind_errors():
    from planner.errors import SqlError

    with pytest.raises(SqlError) as info:
        plan("SELECT TUMBLE_START(ts, INTERVAL '1' MINUTE) FROM bids;")
    assert "only allowed with GROUP BY TUMBLE(...)" in info.value.message
    with pytest.raises(SqlError) as info:
        plan("SELECT SPLIT_INDEX(url, '/') FROM bids;")
    assert "SPLIT_INDEX takes (string, separator, index)" in info.value.message
