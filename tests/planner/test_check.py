"""The checker (planner.analysis.check): every shape Spark cannot run is one coded problem, found from the
plan alone, and the same verdict reaches lint (SE301), EXPLAIN's advice and the job's start.
Each case here was once refused only at run time, or by a copy of the decision elsewhere."""

from __future__ import annotations

import re

import pytest

from catalog import Catalog
from planner.analysis.check import Code
from planner.analysis.physical import RankStrategy, Why
from planner.explain.text import render_text
from planner.logical.operators import OverAggregate
from planner.logical.visit import distinct_nodes
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession

DDL = """
CREATE TABLE bids (ts TIMESTAMP(3), item STRING, price BIGINT, bidder BIGINT, url STRING,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE clicks (ts TIMESTAMP(3), usr STRING, url STRING, pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE items (ts TIMESTAMP(3), id STRING, cat INT,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE odd (ts TIMESTAMP(3), v INT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND + INTERVAL '1' SECOND * v)
  WITH ('connector' = 'datagen');
CREATE TABLE out_files (item STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json');
CREATE TABLE out_print (item STRING, n BIGINT) WITH ('connector' = 'print');
CREATE FUNCTION shout AS 'com.example.Shout';
CREATE TABLE upserts (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = 'u', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'key.format' = 'json', 'value.format' = 'json');
"""
TUMBLE = "TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))"


def plan(sql: str, mode: str = "streaming") -> Outcome:
    session = PlannerSession(Catalog.in_memory(), settings={"execution.runtime-mode": mode})
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


CASES = {
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
    "window after deduplication": (
        "SELECT window_start, COUNT(*) FROM (SELECT item, window_start, window_end FROM (SELECT item, window_start, "
        f"window_end, ROW_NUMBER() OVER (PARTITION BY item ORDER BY ts) AS rn FROM {TUMBLE}) WHERE rn = 1) "
        "GROUP BY window_start, window_end;",
        Code.WINDOW_NOT_CARRIED, "Deduplicate",
    ),
    "updates into files": ("INSERT INTO out_files SELECT item, COUNT(*) FROM bids GROUP BY item;", Code.SINK_TAKES_APPENDS, "only appends"),
    "custom watermark": ("SELECT v FROM odd;", Code.WATERMARK_NOT_CONSTANT, "ts - INTERVAL"),
    "an aggregate without a changelog implementation": (
        "SELECT n, APPROX_COUNT_DISTINCT(n) FROM (SELECT item, COUNT(*) AS n FROM bids GROUP BY item) GROUP BY n;",
        Code.CHANGELOG_AGGREGATE, "APPROX_COUNT_DISTINCT cannot run as a changelog aggregation yet (it runs as one because its input",
    ),
    # (a join without an equality of keys is Python's; on the JVM Spark's expressions evaluate it: below)
    "outer join condition with a function": (
        "SELECT * FROM bids b LEFT JOIN items i ON UPPER(b.url) = i.id;",
        Code.JOIN_CONDITION, "LEFT join",
    ),
    "deduplication on processing time over changes": (
        "SELECT usr, n FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY usr ORDER BY pt) AS rn FROM "
        "(SELECT usr, COUNT(*) AS n, PROCTIME() AS pt FROM clicks GROUP BY usr)) WHERE rn = 1;",
        Code.DEDUP_PROCTIME_CHANGES, "processing time over an updating input",
    ),
    "union of updates without all": (
        "SELECT item, COUNT(*) FROM bids GROUP BY item UNION SELECT id, COUNT(*) FROM items GROUP BY id;",
        Code.UNION_UPDATING, "UNION (without ALL)",
    ),
    "a window over a changelog operator": (
        "SET 'table.exec.state.ttl' = '1 h'; CREATE VIEW firsts AS SELECT usr, ts FROM (SELECT *, ROW_NUMBER() OVER "
        "(PARTITION BY usr ORDER BY pt) AS rn FROM clicks) WHERE rn = 1;"
        "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE firsts, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY window_start, window_end;",
        Code.AFTER_CHANGELOG, "cannot read the rows of a changelog operator (Deduplicate)",
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
    assert "No advice" not in render_text(outcome.analysis)


def test_an_outer_join_condition_with_any_function_runs_on_the_jvm():
    """Spark's own expressions evaluate it there, pair by pair; a user-defined function's call
    (which the Java operator cannot make) is refused as in Python."""
    outcome = plan("SELECT * FROM bids b LEFT JOIN items i ON b.item = i.id AND UPPER(b.url) = i.id;")
    assert outcome.analysis.problems == ()
    # under a state TTL too (the Java join keeps a TTL per side)
    outcome = plan("SELECT /*+ STATE_TTL('b' = '1 h') */ * FROM bids b LEFT JOIN items i ON b.item = i.id AND UPPER(b.url) = i.id;")
    assert outcome.analysis.problems == ()
    outcome = plan("SELECT * FROM bids b LEFT JOIN items i ON b.item = i.id AND shout(b.url) = i.id;")
    assert Code.JOIN_CONDITION in [p.code for p in outcome.analysis.problems]


def test_a_problem_points_at_the_call_it_is_about():
    outcome = plan("SELECT item,\n  shout(url) AS s FROM bids;")
    (d,) = [d for d in outcome.analysis.diagnostics if d.code == "SE301"]
    lines = DDL.count("\n")
    assert (d.line - lines, d.column) == (2, 3)


def test_batch_mode_refuses_only_what_spark_batch_cannot_run():
    over = "SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bids;"
    assert plan(over, "batch").analysis.problems == ()
    assert plan(over).analysis.problems == ()  # a changelog operator on event time
    assert [p.code for p in plan("SELECT shout(item) FROM bids;", "batch").analysis.problems] == [Code.USER_FUNCTION]
    se301 = [d for d in plan("SELECT shout(item) FROM bids;", "batch").analysis.diagnostics if d.code == "SE301"]
    assert se301 and se301[0].message.startswith("Cannot run on Spark (batch mode) as written")
    # a processing-time window is the window operator's in streaming mode only: in batch mode
    # PROCTIME() is the query's instant, which Spark's window aggregation takes with all it has
    proctime = ("SELECT usr, window_start, APPROX_COUNT_DISTINCT(url) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), "
                "INTERVAL '10' SECOND)) GROUP BY usr, window_start, window_end;")
    assert plan(proctime, "batch").analysis.problems == ()
    assert [p.code for p in plan(proctime).analysis.problems] == [Code.CHANGELOG_AGGREGATE]


def test_an_upsert_source_runs_in_streaming_mode_only():
    """As in Flink: upsert-kafka is a changelog source, normalized in streaming mode."""
    (problem,) = plan("SELECT k, n FROM upserts;", "batch").analysis.problems
    assert problem.code == Code.UPSERT_SOURCE and "streaming mode only" in problem.reason
    assert plan("SELECT k, n FROM upserts;").analysis.problems == ()


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


# what Flink runs and Spark's own operators cannot: each runs as a changelog operator, and says why
RUNS = {
    "the three latest clicks of each user": (
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY usr ORDER BY ts DESC) AS rn FROM clicks) WHERE rn <= 3;",
        {"TopN": (Why.NO_NATIVE, RankStrategy.APPEND_FAST)},
    ),
    "users per number of clicks": (
        "SELECT n, COUNT(*) AS users FROM (SELECT usr, COUNT(*) AS n FROM clicks GROUP BY usr) GROUP BY n;",
        {"GroupAggregate": (Why.CONSUMES_CHANGES, None)},
    ),
    "the two users with the most spend": (
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY spend DESC) AS rn FROM "
        "(SELECT bidder, SUM(price) AS spend FROM bids GROUP BY bidder)) WHERE rn <= 2;",
        {"TopN": (Why.CONSUMES_CHANGES, RankStrategy.RETRACT)},
    ),
    "the two busiest items (a count only grows)": (
        "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (ORDER BY n DESC) AS rn FROM "
        "(SELECT item, COUNT(*) AS n FROM bids GROUP BY item)) WHERE rn <= 2;",
        {"TopN": (Why.CONSUMES_CHANGES, RankStrategy.UPDATE_FAST)},
    ),
    "a left join without a time bound": (
        "SELECT b.item, i.cat FROM bids b LEFT JOIN items i ON b.item = i.id;",
        {"RegularJoin": (Why.NO_NATIVE, None)},
    ),
    "a left join whose condition has more than keys": (
        "SELECT b.item, i.cat FROM bids b LEFT JOIN items i ON b.item = i.id AND i.cat = 1 AND b.price > i.cat * 2;",
        {"RegularJoin": (Why.NO_NATIVE, None)},
    ),
    "an IN subquery over a stream": (
        "SELECT item, price FROM bids WHERE item IN (SELECT id FROM items WHERE cat = 2);",
        {"RegularJoin": (Why.NO_NATIVE, None)},
    ),
    "a join of two aggregations": (
        "SELECT c.usr, c.n, s.spend FROM (SELECT usr, COUNT(*) AS n FROM clicks GROUP BY usr) c "
        "JOIN (SELECT url, SUM(1) AS spend FROM clicks GROUP BY url) s ON c.usr = s.url;",
        {"RegularJoin": (Why.CONSUMES_CHANGES, None), "GroupAggregate": (Why.FEEDS_STATEFUL, None)},
    ),
    "a state TTL": (
        "SELECT /*+ STATE_TTL('bids' = '1 h') */ item, COUNT(*) FROM bids GROUP BY item;",
        {"GroupAggregate": (Why.TTL, None)},
    ),
    "an upsert source": (
        "SELECT n, COUNT(*) AS c FROM upserts GROUP BY n;",
        {"ChangelogNormalize": (Why.CONSUMES_CHANGES, None), "GroupAggregate": (Why.CONSUMES_CHANGES, None)},
    ),
    "a result without its key": ("SELECT COUNT(*) AS c FROM bids GROUP BY item;", {"GroupAggregate": (Why.KEY_NOT_KEPT, None)}),
    "an aggregation over a window aggregation": (
        f"SELECT item, MAX(n) FROM (SELECT item, window_start, COUNT(*) AS n FROM {TUMBLE} GROUP BY item, window_start, window_end) "
        "GROUP BY item;",
        {"GroupAggregate": (Why.LATE_INPUT, None)},
    ),
}


@pytest.mark.parametrize("name", list(RUNS))
def test_what_spark_has_no_operator_for_runs_as_a_changelog_operator_and_says_why(name):
    sql, expected = RUNS[name]
    analysis = plan(sql).analysis
    assert analysis.problems == ()
    chosen = {}
    for node in distinct_nodes(analysis.plans):
        physical = analysis.physical_of(node)
        if physical is not None and physical.changelog:
            chosen.setdefault(str(node.kind), (physical.why, physical.strategy))
    assert {k: chosen.get(k) for k in expected} == expected, chosen
    text = render_text(analysis)
    why, _ = next(iter(expected.values()))
    assert re.search(rf"runs as: changelog operator( on the JVM)? \({re.escape(str(why))}", text), text
    se302 = [d for d in analysis.diagnostics if d.code == "SE302"]
    assert any(str(why) in d.message for d in se302), [d.message for d in se302]


def test_native_operators_stay_native():
    analysis = plan("INSERT INTO out_print SELECT item, COUNT(*) FROM bids GROUP BY item;").analysis
    assert [str(p) for p in analysis.physical.values()] == ["native"]
    assert "SE302" not in {d.code for d in analysis.diagnostics}
    assert plan("SELECT item, COUNT(*) FROM bids GROUP BY item;", "batch").analysis.physical == {}


@pytest.mark.parametrize(
    ("sql", "code"),
    [
        (
            "SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY url RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND "
            "CURRENT ROW) FROM bids;",
            Code.OVER_NOT_ROWTIME,
        ),
        # LAG and ROW_NUMBER run on time; over changes (ordered by no time attribute) they do not yet
        ("SELECT item, LAG(price) OVER (PARTITION BY item ORDER BY price) FROM bids;", Code.OVER_FUNCTION),
        ("SELECT item, LEAD(price) OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_FUNCTION_STREAM),
        ("SELECT item, NTILE(2) OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_FUNCTION_STREAM),
        ("SELECT item, PERCENT_RANK() OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_FUNCTION_STREAM),
        ("SELECT item, CUME_DIST() OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_FUNCTION_STREAM),
        ("SELECT item, RANK() OVER (PARTITION BY item ORDER BY price) FROM bids;", Code.OVER_FUNCTION),
        ("SELECT item, RANK() OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_RANK_TIES),
        ("SELECT item, ROW_NUMBER() OVER w, COUNT(*) OVER w FROM bids WINDOW w AS (PARTITION BY item ORDER BY ts);",
         Code.OVER_SAME_WINDOW),
        ("SELECT item, LAG(price, -1) OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_LAG),
        ("SELECT item, LAG(price, price) OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_LAG),
        ("SELECT item, LAG(price, 1, 0.5) OVER (PARTITION BY item ORDER BY ts) FROM bids;", Code.OVER_LAG),
        ("SELECT item, COUNT(DISTINCT url) OVER (PARTITION BY item ORDER BY price) FROM bids;", Code.DISTINCT_AGGREGATE),
    ],
)
def test_what_a_streaming_over_cannot_run_is_refused(sql: str, code: Code):
    """OVER on a stream runs on event or processing time, or over changes, of COUNT/SUM/AVG/MIN/
    MAX/FIRST_VALUE/LAST_VALUE/LISTAGG; a RANGE frame with a size needs a number or a time to measure it; the rest is refused
    with its own reason."""
    outcome = plan(sql)
    assert [p.code for p in outcome.analysis.problems] == [code]


@pytest.mark.parametrize(
    ("sql", "message"),
    [
        ("SELECT LAG(price) OVER (PARTITION BY item ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM bids;",
         "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions"),
        ("SELECT ROW_NUMBER() OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' SECOND PRECEDING AND CURRENT ROW) FROM bids;",
         "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions"),
        ("SELECT LAG(price, 1, NULL) OVER (PARTITION BY item ORDER BY ts) FROM bids;", "Illegal use of 'NULL'"),
    ],
)
@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_what_flinks_validator_refuses_of_lag_and_the_rankings_is_a_bind_error(sql: str, message: str, mode: str):
    """Calcite's rules, with Flink 2.3's messages: these functions take no frame, and LAG's default
    needs a type."""
    from planner.errors import SqlError

    with pytest.raises(SqlError) as info:
        plan(sql, mode)
    assert info.value.message == message and info.value.column == 8


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT item, LAG(price) OVER (PARTITION BY item ORDER BY ts) FROM bids;",
        "SELECT item, LAG(price, 2, CAST(0 AS BIGINT)) OVER w, SUM(price) OVER w FROM bids WINDOW w AS (PARTITION BY item ORDER BY ts);",
        "SELECT item, LAG(url, 0, 'none') OVER (PARTITION BY item ORDER BY ts) FROM bids;",
        "SELECT item, ROW_NUMBER() OVER (PARTITION BY item ORDER BY ts) FROM bids;",
    ],
)
def test_lag_and_row_number_run_in_a_streaming_over_on_time(sql: str):
    """As Flink 2.3 runs them (tests/conformance i07, i08): ROW_NUMBER alone numbers rows in a
    ROWS frame, LAG takes the window's default (RANGE) frame."""
    outcome = plan(sql)
    assert outcome.analysis.problems == ()
    (over,) = [n for n in distinct_nodes(list(outcome.analysis.plans)) if isinstance(n, OverAggregate)]
    assert over.rows == ("ROW_NUMBER" in sql)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY price) FROM bids;",
        "SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY ts DESC) FROM bids;",
        "SELECT item, SUM(n) OVER (PARTITION BY item ORDER BY ts) FROM (SELECT item, MAX(ts) AS ts, COUNT(*) AS n FROM bids GROUP BY item);",
    ],
)
def test_an_over_ordered_by_no_time_attribute_or_over_updates_runs_over_changes(sql: str):
    """Its result updates as rows come and go (Flink 2.3 runs the first two so; the third, over an
    aggregation's updates, not at all); its state is every row its input holds."""
    outcome = plan(sql)
    assert outcome.analysis.problems == ()
    (over,) = [n for n in distinct_nodes(outcome.plans) if n.kind == "OverAggregate"]
    physical = outcome.analysis.physical[over.node_id]
    assert physical.changelog and physical.over_changes and not over.waits_on_watermark()
    assert outcome.analysis.props[over.node_id].changelog.mode.value == "retract"
    (info,) = [i for i in outcome.analysis.state if i.node is over]
    assert info.verdict.value == "unbounded" and "keeps every row its input holds" in str(info.parts[0].release)


def test_a_streaming_over_on_processing_time_runs():
    outcome = plan("SELECT usr, COUNT(*) OVER (PARTITION BY usr ORDER BY pt) FROM clicks;")
    assert outcome.analysis.problems == ()
    (over,) = [n for n in distinct_nodes(outcome.plans) if n.kind == "OverAggregate"]
    assert outcome.analysis.physical[over.node_id].changelog


def test_a_streaming_over_is_a_changelog_operator_that_waits_for_the_watermark():
    outcome = plan("SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bids;")
    (over,) = [n for n in distinct_nodes(outcome.plans) if n.kind == "OverAggregate"]
    physical = outcome.analysis.physical[over.node_id]
    assert physical.changelog and physical.why == Why.NO_NATIVE
    assert over.waits_on_watermark()
