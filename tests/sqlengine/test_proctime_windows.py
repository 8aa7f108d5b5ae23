"""Processing-time windows on real Spark: a TUMBLE (a SESSION, a window Top-N, a window
deduplication) over PROCTIME() emits each window once, when the wall clock passes its end, with
every row counted once, also when no input comes after it (Spark's processing-time timers run a
micro-batch without input; an event-time window would wait for a watermark that only input
moves). The legacy GROUP BY TUMBLE(proctime, ...) form runs too; a bounded job ends as Flink's
does; an OVER and a MATCH_RECOGNIZE ordered by processing time emit their rows as they come; an
interval join on processing time joins the rows read within its bound."""

from __future__ import annotations

import datetime
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from planner.analysis.physical import JVM_SETTING
from planner.errors import SqlError
from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.jobs import Status

pytestmark = pytest.mark.spark


def _clicks(tmp_path: Path, spark, rows: int) -> tuple[Engine, Path]:
    """An engine whose `clicks` table watches a directory holding one file of ``rows`` clicks
    over two pages; the directory, for more files."""
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "1.json").write_text("".join(f'{{"user_id": {i}, "page": "/{i % 2}"}}\n' for i in range(rows)))
    return _engine(tmp_path, spark, incoming), incoming


def _engine(tmp_path: Path, spark, incoming: Path) -> Engine:
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = f"""CREATE TABLE clicks (user_id BIGINT, page STRING, pt AS PROCTIME())
    WITH ('connector' = 'filesystem', 'path' = '{incoming}', 'format' = 'json', 'source.monitor-interval' = '1 s');"""
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    return engine


def _rows_until(job, want_total: int, timeout: float = 90) -> list:
    deadline = time.monotonic() + timeout
    rows: list = []
    while time.monotonic() < deadline and job.error_detail is None:
        rows = job.result.rows() if job.result is not None else []
        if sum(r[-1] for r in rows) >= want_total:
            break
        time.sleep(0.2)
    return rows


def _running_with(job, rows: int, timeout: float = 90) -> None:
    """Wait until the running job's result has ``rows`` rows."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and job.error_detail is None and len(job.result.rows() if job.result else []) < rows:
        time.sleep(0.2)
    assert job.error_detail is None and job.status == Status.RUNNING


def _rows_of(engine: Engine, rows: int, sql: str) -> list:
    """The rows of a continuous query once it has ``rows`` (the job then stopped)."""
    (stmt,) = parse_script(sql).statements
    job = engine.start(engine.plan(stmt))
    try:
        _running_with(job, rows)
        return list(job.result.rows())
    finally:
        engine.stop_all()


@pytest.mark.parametrize("query", [
    "SELECT page, window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND)) "
    "GROUP BY page, window_start, window_end;",
    "SELECT page, TUMBLE_START(pt, INTERVAL '1' SECOND), TUMBLE_END(pt, INTERVAL '1' SECOND), COUNT(*) AS n FROM clicks "
    "GROUP BY page, TUMBLE(pt, INTERVAL '1' SECOND);",
])
@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_a_processing_time_window_closes_on_the_clock_without_more_input(tmp_path, spark, query, zone):
    """In Asia/Kolkata (UTC+05:30) too, as Flink: the windows' bounds are the wall times there,
    and each closes when the clock reaches its end (not 5 hours 30 minutes later)."""
    engine, incoming = _clicks(tmp_path, spark, 10)
    engine.planner.settings["table.local-time-zone"] = zone
    (stmt,) = parse_script(query).statements
    job = engine.start(engine.plan(stmt))
    try:
        rows = _rows_until(job, 10)  # no file comes after the first: only the clock closes its window
        assert job.error_detail is None and job.status == Status.RUNNING
        assert sum(r[3] for r in rows) == 10 and {r[0] for r in rows} == {"/0", "/1"}
        assert all((end - start).total_seconds() == 1 and start.microsecond == 0 for _, start, end, _ in rows)
        there = datetime.datetime.now(ZoneInfo(zone)).replace(tzinfo=None)
        assert all(abs((there - start).total_seconds()) < 120 for _, start, _, _ in rows), (there, rows)
        assert len({(r[0], r[1]) for r in rows}) == len(rows)  # each window and page once
        (incoming / "2.json").write_text('{"user_id": 99, "page": "/9"}\n')
        rows = _rows_until(job, 11)
        later = [r for r in rows if r[0] == "/9"]
        assert [r[3] for r in later] == [1] and later[0][1] > max(r[1] for r in rows if r[0] != "/9")
    finally:
        engine.stop_all()


@pytest.mark.parametrize("query", [
    "SELECT page, window_start, window_end, COUNT(*) AS n FROM TABLE(SESSION(TABLE clicks PARTITION BY page, DESCRIPTOR(pt), "
    "INTERVAL '2' SECOND)) GROUP BY page, window_start, window_end;",
    "SELECT page, SESSION_START(pt, INTERVAL '2' SECOND), SESSION_END(pt, INTERVAL '2' SECOND), COUNT(*) AS n FROM clicks "
    "GROUP BY page, SESSION(pt, INTERVAL '2' SECOND);",
])
@pytest.mark.parametrize("jvm", ["true", "false"])
def test_a_processing_time_session_closes_a_gap_after_its_last_row(tmp_path, spark, query, jvm):
    """Per page, the rows read in one micro-batch make one session, closed by the clock 2 s later
    with no input after it; a row read after that starts a new session (on the JVM and in Python)."""
    engine, incoming = _clicks(tmp_path, spark, 10)
    engine.planner.settings[JVM_SETTING] = jvm
    (stmt,) = parse_script(query).statements
    job = engine.start(engine.plan(stmt))
    try:
        rows = _rows_until(job, 10)
        assert job.error_detail is None and job.status == Status.RUNNING
        assert sorted((r[0], r[3]) for r in rows) == [("/0", 5), ("/1", 5)]
        assert all((end - start).total_seconds() == 2 for _, start, end, _ in rows)  # one read time: the gap
        (incoming / "2.json").write_text('{"user_id": 99, "page": "/0"}\n')
        rows = _rows_until(job, 11)
        again = [r for r in rows if r[0] == "/0"]
        assert sorted(r[3] for r in again) == [1, 5] and len({r[1] for r in again}) == 2
    finally:
        engine.stop_all()


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_a_processing_time_window_top_n_and_deduplication_emit_at_the_windows_end(tmp_path, spark, zone):
    """Per page and 1-second window, the two highest user ids (and the latest row read), emitted
    once the clock passes the window's end, with no input after it (in a zone too: its end there)."""
    engine, _ = _clicks(tmp_path, spark, 10)
    engine.planner.settings["table.local-time-zone"] = zone
    top, last = parse_script(
        "SELECT page, user_id, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, page "
        "ORDER BY user_id DESC) AS rn FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND))) WHERE rn <= 2;\n"
        "SELECT page, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, page "
        "ORDER BY pt DESC) AS rn FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), INTERVAL '1' SECOND))) WHERE rn = 1;"
    ).statements
    jobs = [engine.start(engine.plan(stmt)) for stmt in (top, last)]
    try:
        for job, n in zip(jobs, (4, 2), strict=True):
            _running_with(job, n)
        assert sorted(jobs[0].result.rows()) == [("/0", 6, 2), ("/0", 8, 1), ("/1", 7, 2), ("/1", 9, 1)]
        assert sorted(jobs[1].result.rows()) == [("/0", 8), ("/1", 9)]  # one file: its rows in order, the last kept
    finally:
        engine.stop_all()


def test_match_recognize_ordered_by_processing_time_matches_rows_as_they_come(tmp_path, spark):
    """Per page, the clicks in the order they were read: each pair of a click and a later one of a
    higher user id is a match, out in the micro-batch that read them (no watermark to wait for)."""
    engine, _ = _clicks(tmp_path, spark, 10)
    rows = _rows_of(engine, 4,
                    "SELECT * FROM clicks MATCH_RECOGNIZE (PARTITION BY page ORDER BY pt MEASURES A.user_id AS a, B.user_id AS b "
                    "ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN (A B) DEFINE B AS B.user_id > A.user_id);")
    assert sorted(rows) == [("/0", 0, 2), ("/0", 4, 6), ("/1", 1, 3), ("/1", 5, 7)]


def test_an_interval_join_on_processing_time_joins_the_rows_read_within_the_bound(tmp_path, spark):
    """The clicks with themselves, per page, read within a second of each other: one file read in
    one micro-batch, so every pair of a page (5 x 5 per page)."""
    engine, _ = _clicks(tmp_path, spark, 10)
    rows = _rows_of(engine, 50, "SELECT a.page, a.user_id AS u, b.user_id AS v FROM clicks a JOIN clicks b "
                                "ON a.page = b.page AND a.pt BETWEEN b.pt - INTERVAL '1' SECOND AND b.pt;")
    assert sorted(rows) == sorted((f"/{p}", u, v) for p in (0, 1) for u in range(p, 10, 2) for v in range(p, 10, 2))


@pytest.mark.parametrize("jvm", ["true", "false"])  # sqlengine/jvm/WindowAgg.java, or the Python operator
def test_a_bounded_job_ends_dropping_the_windows_still_open_as_flink_does(tmp_path, spark, jvm):
    """Flink 2.3 gives no row for this query (PyFlink, streaming mode): its processing-time timers
    do not fire once the input has ended, and 500 generated rows end well within a window. The
    window is a day, and a run that would start within 3 minutes of midnight waits for it, so no
    window can close while the job runs (with a minute, a slow run crossed a minute's end)."""
    now = datetime.datetime.now()
    midnight = datetime.datetime.combine(now.date() + datetime.timedelta(days=1), datetime.time())
    if (midnight - now).total_seconds() < 180:
        time.sleep((midnight - now).total_seconds() + 1)
    engine = Engine(home=tmp_path / "home", spark=spark)
    engine.planner.settings[JVM_SETTING] = jvm
    (ddl,) = parse_script("CREATE TABLE g (k INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '500', "
                          "'fields.k.min' = '1', 'fields.k.max' = '3');").statements
    engine.plan(ddl)
    (stmt,) = parse_script("SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), INTERVAL '1' DAY)) "
                           "GROUP BY k, window_start, window_end;").statements
    job = engine.start(engine.plan(stmt))
    assert job.wait(120) and job.status == Status.FINISHED, job.error
    assert job.result is not None and job.result.rows() == []


def test_a_hopping_window_counts_each_row_once_in_each_of_its_windows(tmp_path, spark):
    """A HOP table function makes a row per window; the operator counts it there and nowhere else."""
    engine, _ = _clicks(tmp_path, spark, 10)
    (stmt,) = parse_script("SELECT page, window_start, window_end, COUNT(*) AS n FROM TABLE(HOP(TABLE clicks, DESCRIPTOR(pt), "
                           "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY page, window_start, window_end;").statements
    job = engine.start(engine.plan(stmt))
    try:
        rows = _rows_until(job, 20)
        time.sleep(2)  # nothing more comes
        rows = job.result.rows()
        assert job.error_detail is None, job.error
        assert sum(r[3] for r in rows) == 20  # each of the 10 rows in its 2 windows
        assert all((end - start).total_seconds() == 2 for _, start, end, _ in rows)
        assert len({(r[0], r[1]) for r in rows}) == len(rows)
    finally:
        engine.stop_all()


def test_an_over_window_on_processing_time_emits_each_row_as_it_comes_in_arrival_order(tmp_path, spark):
    engine, _ = _clicks(tmp_path, spark, 6)
    (stmt,) = parse_script("SELECT page, user_id, COUNT(*) OVER (PARTITION BY page ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING "
                           "AND CURRENT ROW) AS n FROM clicks;").statements
    job = engine.start(engine.plan(stmt))
    try:
        deadline = time.monotonic() + 90
        rows: list = []
        while time.monotonic() < deadline and job.error_detail is None and len(rows) < 6:
            rows = job.result.rows() if job.result is not None else []
            time.sleep(0.2)
        assert job.error_detail is None, job.error
        assert sorted(r[1] for r in rows) == list(range(6))  # each row once, with no input after it
        for page in ("/0", "/1"):
            assert sorted(r[2] for r in rows if r[0] == page) == [1, 2, 3]  # a running count, row by row
    finally:
        engine.stop_all()


@pytest.mark.parametrize(("query", "per_row"), [
    ("SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), INTERVAL '1' DAY)) "
     "GROUP BY k, window_start, window_end;", 1),
    ("SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(HOP(TABLE g, DESCRIPTOR(pt), INTERVAL '1' SECOND, "
     "INTERVAL '2' SECOND)) GROUP BY k, window_start, window_end;", 2),
    ("SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(SESSION(TABLE g PARTITION BY k, DESCRIPTOR(pt), "
     "INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;", 1),
    ("SELECT k, TUMBLE_START(pt, INTERVAL '1' DAY), TUMBLE_END(pt, INTERVAL '1' DAY), COUNT(*) AS n FROM g "
     "GROUP BY k, TUMBLE(pt, INTERVAL '1' DAY);", 1),
])
def test_in_batch_mode_a_processing_time_window_is_the_query_instants_on_sparks_own_windows(tmp_path, spark, query, per_row):
    """PROCTIME() in a batch query is its one instant (Spark's current_timestamp): every row falls
    into the windows of that instant, which Spark's window aggregation groups as any time, with
    every aggregate it has (APPROX_COUNT_DISTINCT, which sqlengine's window operator lacks)."""
    engine = Engine(home=tmp_path / "home", spark=spark)
    engine.planner.settings["execution.runtime-mode"] = "batch"
    (ddl,) = parse_script("CREATE TABLE g (k INT, v INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '500', "
                          "'fields.k.min' = '1', 'fields.k.max' = '3', 'fields.v.min' = '1', 'fields.v.max' = '4');").statements
    engine.plan(ddl)
    (stmt,) = parse_script(query.replace("COUNT(*) AS n", "COUNT(*) AS n, APPROX_COUNT_DISTINCT(v) AS d")).statements
    before = datetime.datetime.now()
    job = engine.start(engine.plan(stmt))
    assert job.wait(120) and job.status == Status.FINISHED, job.error
    assert job.batch and not job.history  # Spark's batch engine
    rows = job.result.rows()
    assert sum(r[3] for r in rows) == 500 * per_row and {r[0] for r in rows} == {1, 2, 3}
    assert len(rows) == 3 * per_row and {r[4] for r in rows} == {4}
    for _, start, end, _, _ in rows:  # the windows of the instant the query ran at
        assert start <= datetime.datetime.now() and end >= before - datetime.timedelta(seconds=1)


def test_in_batch_mode_a_processing_time_session_runs_in_a_zone_with_daylight_saving_time(tmp_path, spark):
    """A batch query's PROCTIME() is one instant, so its rows share one session per key in any
    zone (event-time sessions in such a zone merge on the wall clock, on the changelog operator);
    the bounds are the zone's wall time."""
    engine = Engine(home=tmp_path / "home", spark=spark)
    engine.planner.settings["execution.runtime-mode"] = "batch"
    engine.planner.settings["table.local-time-zone"] = "Europe/Berlin"
    (ddl,) = parse_script("CREATE TABLE g (k INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '60', "
                          "'fields.k.min' = '1', 'fields.k.max' = '3');").statements
    engine.plan(ddl)
    (stmt,) = parse_script("SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(SESSION(TABLE g PARTITION BY k, "
                           "DESCRIPTOR(pt), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;").statements
    before = datetime.datetime.now(ZoneInfo("Europe/Berlin")).replace(tzinfo=None)
    job = engine.start(engine.plan(stmt))
    assert job.wait(120) and job.status == Status.FINISHED, job.error
    after = datetime.datetime.now(ZoneInfo("Europe/Berlin")).replace(tzinfo=None)
    rows = job.result.rows()
    assert sorted(r[0] for r in rows) == [1, 2, 3] and sum(r[3] for r in rows) == 60
    for _, start, end, _ in rows:  # one instant: Berlin's wall time while the query ran
        assert before - datetime.timedelta(seconds=1) <= start <= after and end - start == datetime.timedelta(minutes=1)


@pytest.mark.parametrize(("query", "streams"), [
    ("SELECT k, v, window_start FROM (SELECT k, v, window_start, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
     "ORDER BY v DESC) AS r FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), INTERVAL '1' DAY))) WHERE r <= 2", True),
    # over a window aggregation on processing time, which batch mode runs on Spark's own windows
    # (in streaming mode its window operator keeps no window for a ranking above: refused)
    ("SELECT k, n, window_start FROM (SELECT k, window_start, n, ROW_NUMBER() OVER (PARTITION BY window_start, window_end "
     "ORDER BY n DESC) AS r FROM (SELECT k, window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), "
     "INTERVAL '1' DAY)) GROUP BY k, window_start, window_end)) WHERE r <= 2", False),
])
def test_a_processing_time_window_top_n_runs_in_batch_mode_and_as_one_batch_into_a_blackhole(tmp_path, spark, query, streams):
    """Batch mode ranks the window's rows with Spark's window functions (its window struct carried
    on); a bounded streaming job whose sink discards the rows runs as that batch job."""
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = ("CREATE TABLE g (k INT, v INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '300', "
           "'fields.k.min' = '1', 'fields.k.max' = '3', 'fields.v.min' = '1', 'fields.v.max' = '1000');"
           "CREATE TABLE hole (k INT, v BIGINT, s TIMESTAMP(3)) WITH ('connector' = 'blackhole');")
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    engine.planner.settings["execution.runtime-mode"] = "batch"
    (stmt,) = parse_script(query + ";").statements
    job = engine.start(engine.plan(stmt))
    assert job.wait(120) and job.status == Status.FINISHED, job.error
    rows = job.result.rows()
    assert len(rows) == 2 and rows[0][1] >= rows[1][1]  # the top two of the one window
    engine.planner.settings["execution.runtime-mode"] = "streaming"
    (stmt,) = parse_script(f"INSERT INTO hole {query};").statements
    if not streams:
        with pytest.raises(SqlError, match="comes through a WindowAggregate step that does not keep it"):
            engine.start(engine.plan(stmt))
        return
    job = engine.start(engine.plan(stmt))
    assert job.wait(120) and job.status == Status.FINISHED, job.error
    assert job.one_batch
