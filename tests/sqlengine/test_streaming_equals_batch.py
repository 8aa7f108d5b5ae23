"""Streaming = batch, with real Spark: a query run as a streaming job on a bounded input until the
input is exhausted ends in exactly the table the same query computes in batch mode.

The corpus (its input, queries and plain-Python expectations) is in corpus.py. Every case runs
twice through ``Engine.start`` (``execution.runtime-mode`` streaming, then batch);
the final tables (the changelog applied) are compared as multisets of rows, and for many cases
also with an expectation computed here in plain Python. The inputs are files read one per
micro-batch, in event-time order with less disorder than the watermark delay, so state crosses
batch boundaries, windows close mid-stream, and no row is late (lateness is the business of
test_streaming_hypothesis.py). Jobs of the corpus run a few at a time (they mostly wait on Spark's
batch latency); each case is still its own test.

Also here: every Nexmark query Spark can run, over the ``nexmark`` connector, against batch mode;
the ones it cannot run are refused by ``engine.start`` with the operator and the reason, before
any job starts; and the regressions found while writing this suite.
"""

from __future__ import annotations

import concurrent.futures as cf
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from planner.errors import SqlError
from planner.statements.script import parse_script
from sqlengine.engine import Engine
from tests.sqlengine.corpus import CORPUS, ITEMS, TUMBLE10, World, chunks, fork, make_bids, make_items
from tests.sqlengine.expectations import expect_tumble
from tests.sqlengine.helpers import (
    Sql,
    diff,
    multiset,
    read_json_dir,
    ts,
    write_batches,
    write_json,
)

pytestmark = pytest.mark.spark

NEXMARK = Path(__file__).resolve().parents[1] / "fixtures" / "nexmark"
PARALLEL = 4  # jobs in flight at once (they mostly wait on micro-batch latency)


@pytest.fixture(scope="module")
def world(spark, tmp_path_factory) -> World:
    root = tmp_path_factory.mktemp("streaming-equals-batch")
    bids, items = make_bids(), make_items()
    write_batches(root / "bids", chunks(bids, 3))
    write_batches(root / "items", chunks(items, 3))
    write_json(root / "items_static" / "items.json", [{"id": i, "cat": n % 3, "label": f"L{n}"} for n, i in enumerate(ITEMS)])
    engine = Engine(home=root / "home", spark=spark)
    sql = Sql(engine)
    sql.ddl(
        f"""
        CREATE TABLE bids (
            ts TIMESTAMP(3), item STRING, price BIGINT, bidder BIGINT, url STRING,
            amount DECIMAL(10, 2), delta INT,
            WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
        ) WITH ('connector' = 'filesystem', 'path' = '{root / "bids"}', 'format' = 'json',
                'source.max-files-per-trigger' = '1');
        CREATE TABLE items (
            ts TIMESTAMP(3), id STRING, cat INT,
            WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
        ) WITH ('connector' = 'filesystem', 'path' = '{root / "items"}', 'format' = 'json',
                'source.max-files-per-trigger' = '1');
        CREATE TABLE items_static (id STRING, cat INT, label STRING)
            WITH ('connector' = 'filesystem', 'path' = '{root / "items_static"}', 'format' = 'json');
        CREATE VIEW cheap AS SELECT * FROM bids WHERE price < 50;
        """
    )
    return World(engine, sql, bids, items, root)


@pytest.fixture(scope="module")
def corpus_results(world: World) -> dict:
    with cf.ThreadPoolExecutor(PARALLEL) as pool:
        futures = {name: pool.submit(world.fork().both_or_errors, case.sql) for name, case in CORPUS.items()}
        return {name: f.result() for name, f in futures.items()}


def _check(name: str, got: dict, expected_rows=None, min_rows: int = 1) -> None:
    for mode in ("streaming", "batch"):
        if isinstance(got[mode], BaseException):
            raise AssertionError(f"{name}: the {mode} run failed: {got[mode]}") from got[mode]
    streaming, batch = got["streaming"], got["batch"]
    assert streaming == batch, f"{name}: streaming != batch: {diff(batch, streaming)}"
    assert sum(batch.values()) >= min_rows, f"{name}: only {sum(batch.values())} rows; the case proves nothing"
    if expected_rows is not None:
        expected = multiset(expected_rows)
        assert batch == expected, f"{name}: != the Python expectation: {diff(expected, batch)}"


@pytest.mark.parametrize("name", list(CORPUS))
def test_streaming_equals_batch(name: str, corpus_results: dict, world: World) -> None:
    case = CORPUS[name]
    _check(name, corpus_results[name], case.expect(world), case.min_rows)


def test_insert_into_filesystem_sink_reads_back_the_same_rows(world: World, spark) -> None:
    """INSERT INTO a filesystem sink, in both modes (each its own sink), read back; equal to each
    other and to the same query's SELECT."""
    query = f"""SELECT item, window_start, window_end, COUNT(*) AS c, SUM(price) AS s
                FROM {TUMBLE10} GROUP BY item, window_start, window_end"""
    schema = "item STRING, window_start TIMESTAMP_NTZ, window_end TIMESTAMP_NTZ, c BIGINT, s BIGINT"
    read = {}
    for mode in ("streaming", "batch"):
        path = world.root / f"sink-{mode}"
        world.sql.ddl(
            f"""CREATE TABLE sink_{mode} (item STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3),
                    c BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"""
        )
        job = world.sql.job(f"INSERT INTO sink_{mode} {query}", mode)
        assert job.result is None
        read[mode] = multiset(read_json_dir(spark, path, schema))
    assert read["streaming"] == read["batch"], diff(read["batch"], read["streaming"])
    assert read["batch"] == multiset(r[:5] for r in expect_tumble(world))


# -- regressions found by this suite ---------------------------------------------------------------


@pytest.fixture
def late(world: World, tmp_path) -> tuple[Sql, str]:
    """A table whose third file holds rows behind the watermark of the first (late rows)."""
    rows = [
        [{"ts": ts(0), "k": "a", "v": 1}, {"ts": ts(30), "k": "a", "v": 2}],  # watermark 25 after this
        [{"ts": ts(31), "k": "b", "v": 3}],
        [{"ts": ts(0), "k": "a", "v": 4}, {"ts": ts(2), "k": "b", "v": 5}, {"ts": ts(26), "k": "c", "v": 6}],
    ]
    write_batches(tmp_path / "late", rows)
    name = "late_" + re.sub(r"\W", "_", tmp_path.name)
    world.sql.ddl(
        f"""CREATE TABLE {name} (ts TIMESTAMP(3), k STRING, v INT, WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
            WITH ('connector' = 'filesystem', 'path' = '{tmp_path / "late"}', 'format' = 'json',
                  'source.max-files-per-trigger' = '1')"""
    )
    return world.sql, name


@pytest.mark.parametrize(
    "query",
    [
        "SELECT k, ts, COUNT(*) AS c, SUM(v) AS s FROM {t} GROUP BY k, ts",
        "SELECT DISTINCT k, ts FROM {t}",
        "SELECT k, ts FROM {t} UNION SELECT k, ts FROM {t} WHERE v > 2",
        "SELECT ts, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY ts ORDER BY v DESC) AS rn FROM {t}) WHERE rn = 1",
    ],
    ids=["group_by_rowtime", "distinct_rowtime", "union_distinct_rowtime", "top1_partitioned_by_rowtime"],
)
def test_keyed_operators_on_the_rowtime_keep_late_rows(late: tuple[Sql, str], query: str) -> None:
    """A GROUP BY / DISTINCT / UNION / Top-1 keyed on the event-time column is a regular keyed
    operator in Flink: it never drops late rows. Spark took the watermarked key as an event-time
    key and dropped the rows of the third file (behind watermark 25): ('a', 0) counted once."""
    runner, table = late
    streaming, batch = runner.both(query.format(t=table))
    assert streaming == batch, diff(batch, streaming)
    assert sum(batch.values()) >= 4


def test_a_view_read_twice_in_one_streaming_query(nexmark) -> None:
    """Nexmark q5's shape with TUMBLE: the `bid` view is read on both sides of a window join. The
    binder shares the view's plan; translated once, it was one Spark source (the generator's, read
    once per batch) under two stateful branches, and one branch evicted its windows a batch late:
    the streaming result was empty (batch: 317 rows). (File sources are read once per use by Spark
    itself and did not show it.)"""
    counts = """SELECT auction, COUNT(*) AS num, window_start AS ws, window_end AS we
                FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
                GROUP BY auction, window_start, window_end"""
    sql = f"""SELECT A.auction, A.num, M.maxn, A.ws FROM ({counts}) AS A JOIN (
                SELECT MAX(C.num) AS maxn, C.ws, C.we FROM ({counts}) AS C GROUP BY C.ws, C.we) AS M
              ON A.ws = M.ws AND A.we = M.we"""
    streaming, batch = nexmark.sql.both(sql)
    assert streaming == batch, diff(batch, streaming)
    assert sum(batch.values()) >= 100


def test_top1_of_a_key_whose_ordering_values_are_all_null(world: World) -> None:
    """Item 'solo' has one bid and its price is NULL: its Top-1 row is that bid (the batch
    ROW_NUMBER), not a row of NULLs (max_by skipped NULL orderings). Compared on the ordering
    column: item i2's top price is in two files, a tie whose batch run keeps either (a batch read
    orders files by size)."""
    sql = """SELECT item, price, bidder FROM (
               SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC) AS rn FROM bids) WHERE rn = 1"""
    streaming, batch = world.sql.both(sql)
    assert ("solo", None, 1) in streaming
    tops, batch_tops = (multiset(row[:2] for row in rows.elements()) for rows in (streaming, batch))
    assert tops == batch_tops, diff(batch_tops, tops)


def test_user_columns_may_have_the_names_the_translator_uses_for_its_own(world: World) -> None:
    """Columns named like the translator's hidden ones (a window struct, the end-of-input flag)
    are the user's: the translator names its own so that they never clash. `__w1` was taken for a
    window struct and dropped from the result."""
    world.sql.ddl("CREATE VIEW hidden_names AS SELECT item AS `__w1`, price AS `__id`, ts, bidder AS `__eos0` FROM bids")
    sql = """SELECT `__w1`, window_start, window_end, COUNT(*) AS c, SUM(`__id`) AS s, MAX(`__id`) AS mx
             FROM TABLE(TUMBLE(TABLE hidden_names, DESCRIPTOR(ts), INTERVAL '10' SECOND))
             GROUP BY `__w1`, window_start, window_end"""
    streaming, batch = world.sql.both(sql)
    assert streaming == batch == multiset(expect_tumble(world)), diff(multiset(expect_tumble(world)), streaming)


# -- queries Spark cannot run: refused before any job starts ----------------------------------------


REFUSED = {
    # ordered by a plain column an OVER runs over changes (corpus: over_by_price), but a RANGE
    # frame of a size needs a number or a time to measure it on
    "over_range_by_a_string": (
        "SELECT item, SUM(price) OVER (PARTITION BY item ORDER BY url RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM bids",
        ["RANGE frame", "number or a time"],
    ),
    # a changelog aggregation of a function without a retracting implementation
    "approx_count_distinct_over_updates": (
        "SELECT c, APPROX_COUNT_DISTINCT(c) AS cs FROM (SELECT item, COUNT(*) AS c FROM bids GROUP BY item) GROUP BY c",
        ["APPROX_COUNT_DISTINCT", "changelog aggregation"],
    ),
    # (a join without an equality of keys runs in Python, which cannot call UPPER; the JVM join can)
    "outer_join_condition_with_a_function": (
        "SELECT b.item, i.cat FROM bids b LEFT JOIN items i ON UPPER(b.url) = i.id",
        ["condition", "LEFT join"],
    ),
    "order_by": ("SELECT * FROM bids ORDER BY price", ["sorted", "time attribute"]),
    # Spark's session_window makes sessions per GROUP BY key; Flink's SESSION without PARTITION BY
    # makes them over all rows (both modes computed per-id sessions: 4 s long, not 11.5 s)
    "session_tvf_grouped_by_other_keys": (
        """SELECT id, window_start, window_end, COUNT(*) AS c
           FROM TABLE(SESSION(TABLE items, DESCRIPTOR(ts), INTERVAL '4' SECOND))
           GROUP BY id, window_start, window_end""",
        ["SESSION", "PARTITION BY"],
    ),
    "current_watermark": ("SELECT item, CURRENT_WATERMARK(ts) AS wm FROM bids", ["CURRENT_WATERMARK", "no counterpart"]),
    "split_index_column_separator": ("SELECT SPLIT_INDEX(url, item, 1) FROM bids", ["SPLIT_INDEX", "literal separator"]),
    "session_tvf_without_aggregation": (
        "SELECT * FROM TABLE(SESSION(TABLE items PARTITION BY id, DESCRIPTOR(ts), INTERVAL '4' SECOND))",
        ["SESSION", "window aggregation"],
    ),
    # LAG and ROW_NUMBER run (tests/conformance: i07, i08); LEAD Flink does not run on a stream
    "over_lead": (
        "SELECT item, LEAD(price) OVER (PARTITION BY item ORDER BY ts) AS s FROM bids",
        ["LEAD", "stream mode", "as in Flink"],
    ),
}


def _assert_refused(w: World, spark, sql: str, words: list[str]) -> SqlError:
    """``sql`` is refused with a positioned SqlError naming ``words``, and no job was started."""
    jobs = w.engine.home / "jobs"
    before = set(jobs.iterdir()) if jobs.exists() else set()
    submitted = len(w.engine.job_list())
    w.sql.mode("streaming")
    outcome = w.sql.outcome(sql)
    # lint and EXPLAIN say it before anything starts: the same reason, SE301
    (d,) = [d for d in outcome.analysis.diagnostics if d.code == "SE301"][:1]
    with pytest.raises(SqlError) as info:
        w.engine.start(outcome)
    message = info.value.message
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    assert message.split(": ", 1)[1] in d.message, (message, d.message)
    after = set(jobs.iterdir()) if jobs.exists() else set()
    assert after == before and len(w.engine.job_list()) == submitted, "a job was started"
    return info.value


@pytest.mark.parametrize("name", list(REFUSED))
def test_what_spark_cannot_run_is_refused_before_a_job_starts(world: World, spark, name: str) -> None:
    sql, words = REFUSED[name]
    err = _assert_refused(world, spark, sql, words)
    assert err.render().count("^") >= 1  # positioned in the statement


def test_a_user_function_is_refused_whatever_the_case_of_its_name(world: World, spark) -> None:
    """Flink function names are case-insensitive: COUNT_CHAR(...) calls count_char. The check for
    user functions missed the upper-case call and Spark's UNRESOLVED_ROUTINE escaped engine.start."""
    world.sql.ddl("CREATE FUNCTION IF NOT EXISTS count_char AS 'com.github.nexmark.flink.udf.CountChar'")
    for call in ("count_char", "COUNT_CHAR"):
        _assert_refused(world, spark, f"SELECT {call}(url, 'c') FROM bids", ["count_char", "User-defined function"])


# -- Nexmark -----------------------------------------------------------------------------------------

NEXMARK_VARIABLES = {
    "NEXMARK_TABLE": "datagen",
    "TPS": "100",  # event time advances 10 ms per event: 3000 events span 30 s
    "EVENTS_NUM": "3000",
    "PERSON_PROPORTION": "1",
    "AUCTION_PROPORTION": "3",
    "BID_PROPORTION": "46",
}
NEXMARK_RUNS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 13, 15, 16, 17, 18, 19, 20, 21, 22, 23]
# q12 runs (a processing-time window) but its rows follow the wall clock, not the events:
# tests/sqlengine/test_proctime_windows.py checks it
NEXMARK_REFUSED = {
    14: ["count_char", "User-defined function"],
}
_INSERT = re.compile(r"^\s*INSERT\s+INTO\s+\w+\s*", re.I)


@dataclass
class Nexmark:
    engine: Engine
    sql: Sql
    root: Path


@pytest.fixture(scope="module")
def nexmark(spark, tmp_path_factory) -> Nexmark:
    root = tmp_path_factory.mktemp("nexmark")
    variables = {**NEXMARK_VARIABLES, "NEXMARK_DIR": str(root / "nexmark"), "SUBMIT_TIME": "run"}
    engine = Engine(home=root / "home", spark=spark, variables=variables)
    sql = Sql(engine)
    sql.ddl((NEXMARK / "ddl_gen.sql").read_text())
    sql.ddl((NEXMARK / "ddl_views.sql").read_text())
    (root / "side").mkdir()
    (root / "side" / "side_input.csv").write_text("".join(f"{k},v{k}\n" for k in range(0, 10000, 7)))
    # q13's side table as published reads ${FLINK_HOME}/data/side_input.txt (its legacy options are
    # read: tests/sqlengine/test_legacy_csv.py); here it is declared over this test's own file
    sql.ddl(f"""CREATE TABLE side_input (key BIGINT, `value` VARCHAR)
                WITH ('connector' = 'filesystem', 'path' = '{root / "side" / "side_input.csv"}', 'format' = 'csv')""")
    return Nexmark(engine, sql, root)


def nexmark_query(nx: Nexmark, number: int) -> tuple[str, str | None]:
    """Plan the file's DDL (CREATE FUNCTION, views, the sink table) and return its INSERT's query
    as written, and the sink's name."""
    statements = parse_script((NEXMARK / f"q{number}.sql").read_text()).statements
    for stmt in statements[:-1]:
        if "side_input" in stmt.text and stmt.text.lstrip().upper().startswith("CREATE TABLE"):
            continue
        nx.engine.plan(stmt)
    insert = statements[-1].text
    sink = re.match(r"^\s*INSERT\s+INTO\s+(\w+)", insert, re.I)
    return _INSERT.sub("", insert, count=1), sink.group(1) if sink else None


@pytest.fixture(scope="module")
def nexmark_results(nexmark: Nexmark) -> dict:
    queries = {n: nexmark_query(nexmark, n)[0] for n in NEXMARK_RUNS if n != 10}
    with cf.ThreadPoolExecutor(PARALLEL) as pool:
        futures = {n: pool.submit(fork(nexmark.engine).both_or_errors, q) for n, q in queries.items()}
        return {n: f.result() for n, f in futures.items()}


NEXMARK_MIN_ROWS = {2: 3, 3: 3, 4: 2, 19: 500, 5: 10, 7: 2, 8: 3, 9: 50, 11: 20, 13: 50, 15: 1, 16: 4, 17: 50, 18: 100, 20: 100}


@pytest.mark.parametrize("number", [n for n in NEXMARK_RUNS if n != 10])
def test_nexmark_streaming_equals_batch(number: int, nexmark_results: dict) -> None:
    _check(f"q{number}", nexmark_results[number], min_rows=NEXMARK_MIN_ROWS.get(number, 1000))


def test_nexmark_q10_partitioned_filesystem_sink(nexmark: Nexmark, spark) -> None:
    """q10 as published: INSERT into a PARTITIONED BY (dt, hm) csv sink; read back per mode."""
    query, sink = nexmark_query(nexmark, 10)
    assert sink == "nexmark_q10"
    schema = "auction BIGINT, bidder BIGINT, price BIGINT, dateTime TIMESTAMP_NTZ, extra STRING, dt STRING, hm STRING"
    read = {}
    for mode in ("streaming", "batch"):
        path = nexmark.root / f"q10-{mode}"
        nexmark.sql.ddl(
            f"""CREATE TABLE q10_{mode} (auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3),
                  extra VARCHAR, dt STRING, hm STRING) PARTITIONED BY (dt, hm)
                WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'csv')"""
        )
        nexmark.sql.job(f"INSERT INTO q10_{mode} {query}", mode)
        df = spark.read.schema(schema).csv(str(path))
        read[mode] = multiset(tuple(r) for r in df.collect())
        assert sorted(p.name for p in path.iterdir() if p.name.startswith("dt="))  # partition directories
    assert read["streaming"] == read["batch"], diff(read["batch"], read["streaming"])
    assert sum(read["batch"].values()) > 2000


@pytest.mark.parametrize("number", list(NEXMARK_REFUSED))
def test_nexmark_refused(number: int, nexmark: Nexmark, spark) -> None:
    query, _ = nexmark_query(nexmark, number)
    _assert_refused(nexmark, spark, query, NEXMARK_REFUSED[number])


Q6_AS_MEANT = """
SELECT Q.seller, AVG(Q.price) OVER (PARTITION BY Q.seller ORDER BY Q.`dateTime` ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_price
FROM (
    SELECT * FROM (
        SELECT *, ROW_NUMBER() OVER (PARTITION BY id, seller ORDER BY price DESC) AS rownum
        FROM (SELECT A.id, A.seller, B.price, B.`dateTime` FROM auction AS A, bid AS B
              WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires)
    ) WHERE rownum <= 1
) AS Q"""


def test_nexmark_q6_as_meant_streaming_equals_batch(nexmark: Nexmark) -> None:
    """q6 with its `rownum <= 1` inside the subquery, as its authors meant it: each seller's average
    closing price over its last 11 auctions. The Top-1 below the OVER updates an auction's row as
    higher bids come, which Flink's OVER cannot consume; here the OVER runs over changes, and its
    final table is the batch result."""
    _check("q6 as meant", fork(nexmark.engine).both_or_errors(Q6_AS_MEANT), min_rows=100)


def test_nexmark_q6_does_not_bind(nexmark: Nexmark) -> None:
    """q6 filters on `rownum` in the SELECT that defines it; Flink rejects it too."""
    statements = parse_script((NEXMARK / "q6.sql").read_text()).statements
    for stmt in statements[:-1]:
        nexmark.engine.plan(stmt)
    with pytest.raises(SqlError) as info:
        nexmark.engine.plan(statements[-1])
    assert "rownum" in info.value.message
