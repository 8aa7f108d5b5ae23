"""Which bounded streaming jobs may run as one batch job (planner.analysis.one_batch): the input
comes in one micro-batch, the result is insert-only, no changelog operator, no filesystem sink;
an updated result and changelog operators too where every sink discards its rows."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.one_batch import OneBatch, one_batch, setting_on
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

DDL = """
CREATE TABLE bids (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '100');
CREATE TABLE endless (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE files (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'filesystem', 'path' = '/tmp/in', 'format' = 'json');
CREATE TABLE trickle (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/in', 'format' = 'json', 'source.max-files-per-trigger' = '1');
CREATE TABLE lenient (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/in', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE hole (auction BIGINT, n BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE shown (auction BIGINT, n BIGINT) WITH ('connector' = 'print');
CREATE TABLE clock (auction BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '100');
CREATE TABLE upserts (auction BIGINT, n BIGINT, PRIMARY KEY (auction) NOT ENFORCED) WITH ('connector' = 'upsert-kafka',
  'topic' = 'n', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'key.format' = 'json', 'value.format' = 'json',
  'scan.bounded.mode' = 'latest-offset');
CREATE TABLE out_files (auction BIGINT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/out', 'format' = 'json');
"""

WINDOWED = "SELECT auction, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE {t}, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end"


def analysis_of(sql: str, results_as_changes: bool = False, **settings: str):
    session = PlannerSession(Catalog.in_memory(), settings=settings)
    session.results_as_changes = results_as_changes
    outcome = None
    for stmt in parse_script(DDL + sql).statements:
        outcome = session.execute(stmt)
    assert outcome is not None and outcome.analysis is not None
    return outcome.analysis


def verdict(sql: str, **settings: str):
    analysis = analysis_of(sql, **settings)
    return one_batch(analysis.plans, analysis, changes_shown=True)  # every check, as for a changelog view


@pytest.mark.parametrize(
    "sql",
    [
        WINDOWED.format(t="bids") + ";",
        WINDOWED.format(t="files") + ";",
        "INSERT INTO hole " + WINDOWED.format(t="bids") + ";",
        "SELECT auction, price FROM files WHERE price > 10;",  # stateless
        # an interval join, and a regular inner join of two appends: both insert-only
        "SELECT b.auction, c.price FROM bids b JOIN files c ON b.auction = c.auction "
        "AND c.ts BETWEEN b.ts AND b.ts + INTERVAL '1' MINUTE;",
        "SELECT b.auction, c.price FROM bids b JOIN files c ON b.auction = c.auction;",
    ],
)
def test_a_bounded_insert_only_job_read_in_one_micro_batch_runs_as_one_batch(sql):
    got = verdict(sql)
    assert got.ok, got
    assert str(got) == "runs as one batch job"


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        (WINDOWED.format(t="endless") + ";", "a source is unbounded"),
        (WINDOWED.format(t="trickle") + ";", "trickle is read in several micro-batches"),
        # an OPTIONS hint counts as the table's own option
        (WINDOWED.format(t="files /*+ OPTIONS('source.max-files-per-trigger' = '2') */") + ";",
         "files is read in several micro-batches"),
        # the streaming progress counts the records it skips; a batch run reports none
        (WINDOWED.format(t="lenient") + ";", "lenient skips malformed records"),
        ("INSERT INTO out_files " + WINDOWED.format(t="bids") + ";", "out_files is a filesystem sink"),
    ],
)
def test_a_job_that_a_streaming_run_would_tell_apart_stays_streaming(sql, why):
    got = verdict(sql)
    assert not got.ok
    assert got.why_not is not None and got.why_not.startswith(why), got
    assert str(got).startswith("runs as a streaming job: ")


def test_batch_mode_is_batch_already():
    got = verdict(WINDOWED.format(t="bids") + ";", **{"execution.runtime-mode": "batch"})
    assert got.why_not == "batch mode already"


@pytest.mark.parametrize(("value", "on"), [(None, True), ("true", True), ("false", False), ("OFF", False), ("0", False)])
def test_the_setting_turns_it_off(value, on):
    assert setting_on({} if value is None else {"sqlengine.bounded.batch": value}) is on


@pytest.mark.parametrize(
    ("settings", "why_not"),
    [
        ({}, None),
        ({"sqlengine.bounded.batch": "false"}, "'sqlengine.bounded.batch' is 'false'"),
        ({"execution.savepoint.path": "/tmp/sp"}, "it starts from a savepoint ('execution.savepoint.path')"),
    ],
)
def test_the_analysis_holds_the_verdict_under_the_statement_settings(settings, why_not):
    got = analysis_of("INSERT INTO hole " + WINDOWED.format(t="bids") + ";", **settings).one_batch
    assert got is not None and got.why_not == why_not


@pytest.mark.parametrize(
    "sql", [WINDOWED.format(t="endless") + ";", WINDOWED.format(t="bids") + ";"], ids=["unbounded", "batch"]
)
def test_only_a_bounded_streaming_job_has_a_verdict(sql):
    settings = {"execution.runtime-mode": "batch"} if "bids" in sql else {}
    assert analysis_of(sql, **settings).one_batch is None


GROUPED = "SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction"
BOTH = "SELECT * FROM bids UNION ALL SELECT * FROM files"
TOP3 = ("SELECT auction, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS r "
        "FROM bids) WHERE r <= 3")


@pytest.mark.parametrize(
    "sql",
    [
        f"INSERT INTO hole {GROUPED};",  # an updated result
        f"INSERT INTO hole {TOP3};",  # a changelog operator
        f"EXECUTE STATEMENT SET BEGIN INSERT INTO hole {GROUPED}; INSERT INTO hole {TOP3}; END;",
    ],
)
def test_what_only_a_sink_that_discards_rows_receives_runs_as_one_batch(sql):
    assert verdict(sql).ok


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        # the print sink shows each change
        (f"INSERT INTO shown {GROUPED};", "its result is updated"),
        (f"EXECUTE STATEMENT SET BEGIN INSERT INTO hole {GROUPED}; INSERT INTO shown {GROUPED}; END;",
         "its result is updated"),
        (f"INSERT INTO shown {TOP3};", "TopN runs as a changelog operator"),
        # still counted in the streaming progress
        ("INSERT INTO hole SELECT auction, COUNT(*) AS n FROM lenient GROUP BY auction;", "lenient skips malformed"),
    ],
)
def test_a_sink_that_shows_changes_keeps_an_updated_job_streaming(sql, why):
    got = verdict(sql)
    assert got.why_not is not None and got.why_not.startswith(why), got


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        # a group aggregation updates its rows: a streaming run emits each change
        (f"{GROUPED};", "its result is updated (the changes are shown)"),
        # a Top-3 by RANK (ties all kept: no arrival order) over appends runs as a changelog operator
        (f"{TOP3.replace('ROW_NUMBER', 'RANK')};", "TopN runs as a changelog operator"),
    ],
)
def test_a_query_shown_as_its_changes_stays_streaming_and_as_its_table_runs_as_one_batch(sql, why):
    got = analysis_of(sql, **{"sql-client.execution.result-mode": "changelog"}).one_batch
    assert got is not None and got.why_not == why
    for mode in ("table", "tableau"):
        assert analysis_of(sql, **{"sql-client.execution.result-mode": mode}).one_batch == OneBatch(None)
    assert analysis_of(sql).one_batch == OneBatch(None)


@pytest.mark.parametrize(
    ("sql", "line"),
    [
        (f"INSERT INTO hole {GROUPED};", "Bounded job: runs as one batch job (its whole input comes in one micro-batch), "
                                         "unless its checkpoint holds an earlier run to resume."),
        (WINDOWED.format(t="bids") + ";", "Bounded job: runs as one batch job (its whole input comes in one micro-batch)."),
        (f"INSERT INTO shown {GROUPED};", "Bounded job: runs as a streaming job: its result is updated (the changes a sink receives)."),
    ],
)
def test_explain_says_how_a_bounded_job_runs(sql, line):
    from planner.explain.json_plan import to_dict
    from planner.explain.text import render_explain

    analysis = analysis_of(sql)
    assert line in render_explain(analysis).splitlines()
    assert to_dict(analysis)["one_batch"] == {"ok": analysis.one_batch.ok, "why_not": analysis.one_batch.why_not}
    assert "Bounded job:" not in render_explain(analysis_of(WINDOWED.format(t="endless") + ";"))


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        # insert-only, yet the first of two bids of one time is the one that came first, which a
        # batch run knows only of rows straight from a scan (planner.analysis.arrival)
        ("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY ts) AS r FROM "
         f"({BOTH})) WHERE r = 1;",
         "Deduplicate keeps, of rows that tie on its order, the one that arrived first, and its rows come out of a "
         "Union (a batch run knows their arrival order only straight from a scan)"),
        ("SELECT auction, LISTAGG(CAST(price AS STRING)) AS prices FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), "
         "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end;", "LISTAGG takes rows in the order they arrive"),
        ("SELECT auction, COUNT(*) FROM TABLE(TUMBLE(TABLE clock, DESCRIPTOR(pt), INTERVAL '10' SECOND)) "
         "GROUP BY auction, window_start, window_end;",
         "WindowAggregate runs on processing time (what a streaming run emits depends on when rows arrive)"),
        (f"SELECT * FROM ({GROUPED}) ORDER BY n DESC LIMIT 3;",
         "ORDER BY ... LIMIT keeps, of rows that tie on its order, the one that arrived first, and its rows come out of a "
         "GroupAggregate (a batch run knows their arrival order only straight from a scan)"),
        ("SELECT auction, SUM(price) OVER (PARTITION BY auction ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM bids;",
         "OverAggregate takes rows of the same time in the order they arrive"),
    ],
)
def test_a_result_that_depends_on_arrival_order_stays_streaming_unless_discarded(sql, why):
    assert verdict(sql).why_not == why
    assert analysis_of(sql).one_batch == OneBatch(why)
    select = sql.rstrip(";")
    assert verdict(f"INSERT INTO hole SELECT 1, 2 FROM ({select});").ok


def test_a_run_that_prints_changes_keeps_an_updated_query_streaming_whatever_the_script_sets():
    # 'sqlengine run --changelog': the session's flag, which no SET or RESET undoes
    for mode in ("table", "tableau"):
        got = analysis_of(f"{GROUPED};", results_as_changes=True, **{"sql-client.execution.result-mode": mode}).one_batch
        assert got == OneBatch("its result is updated (the changes are shown)")


def test_more_that_stays_streaming_or_not():
    # a batch job cannot read an upsert source's changelog, whatever reads its result
    # (what the one checker says in batch mode)
    assert analysis_of("INSERT INTO hole SELECT auction, n FROM upserts;").one_batch == OneBatch(
        "a batch job cannot run it (Scan: reading `upserts`, an upsert-kafka table (upserts and tombstones of its key), "
        "runs in streaming mode only, as in Flink (its source is unbounded))")
    # what only feeds a blackhole is not seen: the Top-3 there does not keep the other sink streaming
    assert verdict(f"EXECUTE STATEMENT SET BEGIN INSERT INTO hole {TOP3}; INSERT INTO shown SELECT auction, price FROM bids; END;").ok
    # a query restores no savepoint
    assert analysis_of(f"{GROUPED};", **{"execution.savepoint.path": "/tmp/sp"}).one_batch == OneBatch(None)


def test_a_result_mode_given_to_the_session_is_read_as_set_keeps_it():
    # a config file's or --conf's value, in any case, as the shell's views read it
    session = PlannerSession(Catalog.in_memory(), settings={"sql-client.execution.result-mode": " Changelog"})
    assert session.settings["sql-client.execution.result-mode"] == "changelog"
    got = analysis_of(f"{GROUPED};", **{"sql-client.execution.result-mode": "CHANGELOG"}).one_batch
    assert got == OneBatch("its result is updated (the changes are shown)")


@pytest.mark.parametrize(
    ("sql", "kind", "as_changes"),
    [
        (f"{TOP3};", "TopN", "TopN runs as a changelog operator"),
        ("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY ts DESC) AS r FROM bids "
         "WHERE price > 10) WHERE r = 1;", "Deduplicate", "its result is updated (the changes are shown)"),
        ("SELECT auction, price FROM files ORDER BY price DESC LIMIT 3;", "Sort", "Sort runs as a changelog operator"),
        # a window Top-N on event time, past its window table function: insert-only, Spark's own
        ("SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS r "
         "FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE r <= 2;", "WindowTopN", None),
    ],
)
def test_a_ranking_straight_from_a_scan_runs_as_one_batch_breaking_ties_in_arrival_order(sql, kind, as_changes):
    from planner.analysis.arrival import arrival_kept
    from planner.logical.visit import distinct_nodes

    analysis = analysis_of(sql)
    assert analysis.one_batch == OneBatch(None)
    assert [n.kind for n in distinct_nodes(analysis.plans) if arrival_kept(n)] == [kind]
    # shown as its changes, what updates streams
    assert analysis_of(sql, results_as_changes=True).one_batch == OneBatch(as_changes)
