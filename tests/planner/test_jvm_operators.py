"""Which changelog operators the planner runs on the JVM (planner.analysis.jvm_operators,
sqlengine/jvm): a Top-N or ORDER BY ... LIMIT, with any strategy, ordered by plain values, and a
group aggregation of counts, sums, averages and extremes without DISTINCT, a deduplication
that is a changelog operator (under a TTL) by keys that are not floating, and a regular join on
keys of one type each, not floating (with any further condition but one calling a Python function), without a TTL, unless
'sqlengine.changelog.jvm' is off; EXPLAIN says so, and a checkpoint of the other implementation
is refused (the two keep their state in different layouts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.analysis.physical import JVM_SETTING
from planner.logical.joins import Join
from planner.logical.visit import distinct_nodes
from planner.resume import compare, job_print
from tests.planner.helpers import explain, outcome

ROOT = Path(__file__).resolve().parents[2]

DDL = """
CREATE TABLE bids (item BIGINT, bidder STRING, price DECIMAL(10, 2), score DOUBLE, tag BYTES, ok BOOLEAN,
  ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '/tmp/bids', 'format' = 'json');
CREATE TABLE out3 (item BIGINT, price DECIMAL(10, 2), r BIGINT) WITH ('connector' = 'print');
"""


def _top(order: str, fn: str = "ROW_NUMBER", source: str = "bids") -> str:
    return (f"SELECT item, price, r FROM (SELECT item, price, {fn}() OVER (PARTITION BY item ORDER BY {order}) AS r "
            f"FROM {source}) WHERE r <= 3;")


def _ranking(sql: str, **settings: str):
    ddl = DDL + "".join(f"SET '{k}' = '{v}';" for k, v in settings.items())
    analysis = outcome(ddl, sql).analysis
    assert analysis is not None and analysis.problems == ()
    rankings = [n for n in distinct_nodes(analysis.plans) if str(n.kind) in ("TopN", "Sort")]
    physical = analysis.physical_of(rankings[0])
    assert physical is not None
    return physical, analysis


@pytest.mark.parametrize("fn", ["ROW_NUMBER", "RANK", "DENSE_RANK"])
@pytest.mark.parametrize("order", ["price DESC", "score", "bidder DESC", "ts", "ok, price DESC"])
def test_a_top_n_over_appends_runs_on_the_jvm(fn, order):
    physical, _ = _ranking(_top(order, fn))
    assert (physical.jvm, str(physical.strategy)) == (True, "AppendFastStrategy")
    assert str(physical).startswith("changelog operator on the JVM (")


def test_order_by_limit_over_appends_runs_on_the_jvm():
    physical, _ = _ranking("SELECT item, price FROM bids ORDER BY price DESC LIMIT 5;")
    assert physical.jvm


def test_explain_says_where_it_runs():
    text = explain(DDL, _top("price DESC"))
    assert "runs as: changelog operator on the JVM (Spark has no operator for it, AppendFastStrategy)" in text


@pytest.mark.parametrize(
    "aggregate,strategy",
    [("SUM(score)", "RetractStrategy"), ("COUNT(*)", "UpdateFastStrategy")],
)
def test_a_top_n_over_updates_runs_on_the_jvm_with_its_strategy(aggregate, strategy):
    physical, analysis = _ranking(
        "SELECT item, n, r FROM (SELECT item, n, ROW_NUMBER() OVER (PARTITION BY item ORDER BY n DESC) AS r "
        f"FROM (SELECT bidder, item, {aggregate} AS n FROM bids GROUP BY bidder, item)) WHERE r <= 3;"
    )
    assert (physical.jvm, str(physical.strategy)) == (True, strategy)
    # the aggregation below it, whose updates it reads, runs on the JVM too
    (below,) = [p for n in distinct_nodes(analysis.plans) if str(n.kind) == "GroupAggregate" and (p := analysis.physical_of(n))]
    assert below.changelog and below.jvm


def test_a_ranking_ordered_by_bytes_stays_in_python():
    physical, _ = _ranking(_top("tag"))
    assert physical.changelog and not physical.jvm
    assert str(physical).startswith("changelog operator (")


def _aggregation(calls: str, keys: str = "n") -> object:
    """The outer aggregation's physical plan, over the updates of a count per item."""
    ddl = DDL
    sql = f"SELECT {keys}, {calls} FROM (SELECT item, COUNT(*) AS n, MAX(score) AS hi, MAX(bidder) AS who, " \
          f"SUM(price) AS total FROM bids GROUP BY item) GROUP BY {keys};"
    analysis = outcome(ddl, sql).analysis
    assert analysis is not None and analysis.problems == ()
    top = next(n for n in distinct_nodes(analysis.plans) if str(n.kind) == "GroupAggregate")  # the outer one first
    physical = analysis.physical_of(top)
    assert physical is not None and physical.changelog
    return physical


@pytest.mark.parametrize("calls", [
    "COUNT(*), COUNT(who), SUM(n), AVG(total), MIN(hi), MAX(who)",
    "SUM(hi) FILTER (WHERE n > 2), AVG(n) FILTER (WHERE who <> 'x')",
    "MIN(total), MAX(n), COUNT(hi)",
    # DISTINCT of one value that is not floating: each value with its count, in a Java map
    "COUNT(DISTINCT who), SUM(DISTINCT n), AVG(DISTINCT total), MAX(DISTINCT hi)",
])
def test_a_group_aggregation_of_counts_sums_averages_and_extremes_runs_on_the_jvm(calls):
    assert _aggregation(calls).jvm


@pytest.mark.parametrize("calls,keys", [
    ("COUNT(DISTINCT hi)", "n"),  # distinct floating values: -0.0 and NaN tell apart differently in Java
    ("SUM(DISTINCT hi)", "n"),
    ("COUNT(DISTINCT who, n)", "n"),  # distinct pairs: Python's
    ("LISTAGG(who)", "n"),
    ("STDDEV_POP(hi)", "n"),
    ("COUNT(*)", "hi"),  # a floating key: -0.0 and NaN group differently in Python and in Spark
    ("ARRAY_AGG(who)", "n"),
])
def test_other_group_aggregations_stay_in_python(calls, keys):
    physical = _aggregation(calls, keys)
    assert not physical.jvm and str(physical).startswith("changelog operator (")


@pytest.mark.parametrize("watched", [False, True])
def test_a_group_aggregation_under_a_ttl_runs_on_the_jvm_only_in_an_unbounded_job(watched):
    """The Java one releases an idle group on Spark's processing-time timeouts, which a bounded
    job cannot run (its untouched groups would stay): there it stays in Python."""
    option = ", 'source.monitor-interval' = '1 s'" if watched else ""
    ddl = DDL.replace("'format' = 'json')", f"'format' = 'json'{option})", 1) + "SET 'table.exec.state.ttl' = '1 h';"
    analysis = outcome(ddl, "SELECT item, COUNT(*) FROM bids GROUP BY item;").analysis
    assert analysis is not None
    (physical,) = [p for p in analysis.physical.values() if p.changelog]
    assert physical.jvm == watched
    # the unbounded job's operator releases idle groups on Spark's timeouts (the translator reads it)
    assert analysis.bounded != watched and physical.timeouts == watched
    # EXPLAIN says so
    assert str(physical).endswith("; idle keys released on Spark's processing-time timeouts)") == watched


def test_a_state_ttl_hint_overrides_the_sessions_ttl():
    """A hint of 1 ms: the operator's rows expire, released on timeouts. A hint of 0 ms keeps its
    state forever whatever the session's TTL (as Flink, and the operators, read it): nothing to
    expire, so Spark's own aggregation runs it."""
    ddl = DDL.replace("'format' = 'json')", "'format' = 'json', 'source.monitor-interval' = '1 s')", 1) + "SET 'table.exec.state.ttl' = '1 h';"

    def physical(hint: str) -> list:
        analysis = outcome(ddl, f"SELECT /*+ STATE_TTL('bids' = '{hint}') */ item, COUNT(*) FROM bids GROUP BY item;").analysis
        assert analysis is not None
        return list(analysis.physical.values())

    (expiring,) = physical("1 ms")
    assert expiring.jvm and expiring.timeouts
    (kept,) = physical("0 ms")
    assert not kept.changelog and not kept.timeouts


def test_the_setting_turns_it_off():
    physical, _ = _ranking(_top("price DESC"), **{JVM_SETTING: "false"})
    assert physical.changelog and not physical.jvm


def test_a_checkpoint_of_the_other_implementation_is_refused():
    sql = "INSERT INTO out3 " + _top("price DESC")
    on_jvm = job_print(_ranking(sql)[1], backend="HDFSBackedStateStoreProvider", buckets=64)
    in_python = job_print(_ranking(sql, **{JVM_SETTING: "false"})[1], backend="HDFSBackedStateStoreProvider", buckets=64)
    verdict = compare(in_python, on_jvm)
    assert not verdict.compatible
    assert ("TopN #2 runs as changelog operator on the JVM (AppendFastStrategy) (Spark has no operator for it) now, as "
            "changelog operator (AppendFastStrategy) before; SET 'sqlengine.changelog.jvm' = 'false' runs it as before") in str(verdict)
    assert "SET 'sqlengine.changelog.jvm' = 'true' runs it as before" in str(compare(on_jvm, in_python))
    assert compare(on_jvm, on_jvm).compatible


PROCTIME_DDL = DDL + "CREATE TABLE clicks (page STRING, n BIGINT, score DOUBLE, pt AS PROCTIME()) WITH ('connector' = 'datagen');"


def _window(query: str, zone: str | None = None):
    ddl = PROCTIME_DDL + (f"SET 'table.local-time-zone' = '{zone}';" if zone else "")
    analysis = outcome(ddl, query).analysis
    assert analysis is not None and analysis.problems == ()
    (physical,) = [p for p in analysis.physical.values() if p.changelog]
    return physical


@pytest.mark.parametrize("window", [
    "TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND)",
    "HOP(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND, INTERVAL '3' SECOND)",
    "CUMULATE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND, INTERVAL '3' SECOND)",
])
@pytest.mark.parametrize("zone", [None, "Asia/Kolkata"])
def test_a_processing_time_window_aggregation_runs_on_the_jvm(window, zone):
    physical = _window(f"SELECT page, window_start, COUNT(*), SUM(n) FILTER (WHERE score > 1), AVG(score), MAX(page) "
                       f"FROM TABLE({window}) GROUP BY page, window_start, window_end;", zone)
    assert physical.jvm and str(physical) == "changelog operator on the JVM (Spark has no operator for it)"


def test_a_processing_time_session_runs_on_the_jvm():
    assert _window("SELECT page, COUNT(*) FROM clicks GROUP BY page, SESSION(pt, INTERVAL '2' SECOND);").jvm


@pytest.mark.parametrize("query,zone", [
    # on the wall clock of a zone with daylight saving time: a window's end is no instant moved by one offset
    ("SELECT page, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND)) "
     "GROUP BY page, window_start, window_end;", "Europe/Berlin"),
    ("SELECT page, COUNT(DISTINCT n) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND)) "
     "GROUP BY page, window_start, window_end;", None),
    ("SELECT score, COUNT(*) FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND)) "
     "GROUP BY score, window_start, window_end;", None),  # a floating key
])
def test_other_processing_time_windows_stay_in_python(query, zone):
    physical = _window(query, zone)
    assert physical.changelog and not physical.jvm


def _dedup(key: str = "item", **settings: str):
    ddl = DDL + "".join(f"SET '{k}' = '{v}';" for k, v in settings.items())
    sql = (f"SELECT item, bidder, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {key} ORDER BY ts DESC) AS r "
           "FROM bids) WHERE r = 1;")
    analysis = outcome(ddl, sql).analysis
    assert analysis is not None and analysis.problems == ()
    (node,) = [n for n in distinct_nodes(analysis.plans) if str(n.kind) == "Deduplicate"]
    physical = analysis.physical_of(node)
    assert physical is not None
    return physical


@pytest.mark.parametrize("key", ["item", "bidder", "item, ok"])
def test_a_deduplication_under_a_ttl_runs_on_the_jvm(key):
    physical = _dedup(key, **{"table.exec.state.ttl": "1 h"})
    assert physical.changelog and physical.jvm
    assert str(physical).startswith("changelog operator on the JVM (")


def test_a_deduplication_by_a_floating_key_stays_in_python():
    physical = _dedup("score", **{"table.exec.state.ttl": "1 h"})
    assert physical.changelog and not physical.jvm


def test_a_deduplication_stays_in_python_when_the_jvm_is_off():
    physical = _dedup(**{"table.exec.state.ttl": "1 h", JVM_SETTING: "false"})
    assert physical.changelog and not physical.jvm


def test_a_deduplication_without_a_ttl_is_sparks_own():
    physical = _dedup()
    assert not physical.changelog and not physical.jvm


# -- regular joins ---------------------------------------------------------------------------

COUNTS = "(SELECT item, bidder, score, COUNT(*) AS n FROM bids GROUP BY item, bidder, score)"


def _join(on: str, kind: str = "LEFT", **settings: str):
    ddl = DDL + "".join(f"SET '{k}' = '{v}';" for k, v in settings.items())
    analysis = outcome(ddl, f"SELECT b.item, c.n FROM bids b {kind} JOIN {COUNTS} c ON {on};").analysis
    assert analysis is not None and analysis.problems == ()
    (node,) = [n for n in distinct_nodes(analysis.plans) if type(n) is Join]
    physical = analysis.physical_of(node)
    assert physical is not None and physical.changelog
    return physical


@pytest.mark.parametrize("kind", ["LEFT", "RIGHT", "FULL", "INNER"])
@pytest.mark.parametrize("on", ["b.item = c.item", "b.bidder = c.bidder AND c.item = b.item"])
def test_a_join_on_keys_alone_runs_on_the_jvm(kind, on):
    physical = _join(on, kind)
    assert physical.jvm and str(physical).startswith("changelog operator on the JVM (")


@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
def test_a_join_with_a_condition_on_both_sides_fields_runs_on_the_jvm(kind):
    """An inner join's output is filtered by it; another kind's matches are decided by it pair by
    pair, in Spark's expressions."""
    assert _join("b.item = c.item AND b.price > c.n", kind).jvm


def test_a_join_whose_condition_calls_a_python_function_is_refused_unless_inner():
    """The function runs only in Spark's Python runner, not inside the Java operator, and the
    Python join cannot call it either: an outer join with it is refused (an inner one filters
    its output with it, in Spark)."""
    udf = ROOT / "examples" / "udf" / "nexmark_udfs.py"
    ddl = DDL + f"SET 'python.files' = '{udf}'; CREATE TEMPORARY FUNCTION cc AS 'nexmark_udfs.count_char' LANGUAGE PYTHON;"
    on = "ON b.item = c.item AND cc(c.bidder, 'a') > b.item"
    analysis = outcome(ddl, f"SELECT b.item, c.n FROM bids b LEFT JOIN {COUNTS} c {on};").analysis
    assert analysis is not None and [p.code.value for p in analysis.problems] == ["join-condition"]
    analysis = outcome(ddl, f"SELECT b.item, c.n FROM bids b JOIN {COUNTS} c {on};").analysis
    assert analysis is not None and analysis.problems == ()
    (node,) = [n for n in distinct_nodes(analysis.plans) if type(n) is Join]
    physical = analysis.physical_of(node)
    assert physical is not None and physical.changelog and physical.jvm


@pytest.mark.parametrize("on", [
    "b.score = c.score",  # a floating key
    "b.price = c.item",  # keys of two types (DECIMAL, BIGINT): Python compares 1 and 1.00 equal
    "TRUE",  # no keys: one key holds every row, and Spark would count the JVM operator's state as that one key
])
def test_other_joins_stay_in_python(on):
    assert not _join(on).jvm
    assert not _join(on, "INNER").jvm


@pytest.mark.parametrize("kind", ["LEFT", "INNER"])
def test_a_join_under_a_ttl_runs_on_the_jvm(kind):
    physical = _join("b.item = c.item", kind, **{"table.exec.state.ttl": "1 h"})
    assert physical.jvm and not physical.timeouts  # a bounded job: no timeouts
    assert not _join("b.item = c.item", kind, **{JVM_SETTING: "false"}).jvm
