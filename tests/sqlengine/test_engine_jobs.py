"""Jobs through the real engine on local Spark: a bounded INSERT writes its rows once and a re-run
finds its checkpoint complete; INSERT OVERWRITE replaces data in batch mode and is refused in
streaming; what Spark cannot enforce or load (a state TTL, a user function) is refused before a
job starts, at its place in the statement."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from planner.errors import SqlError
from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.jobs import Status
from tests.sqlengine.helpers import in_read_order, run_statement

pytestmark = pytest.mark.spark

ROWS = [
    '{"user_id": 1, "page": "/a", "ts": "2024-01-01 00:00:01.000"}',
    '{"user_id": 2, "page": "/a", "ts": "2024-01-01 00:00:30.000"}',
    '{"user_id": 1, "page": "/b", "ts": "2024-01-01 00:01:10.000"}',
    '{"user_id": 3, "page": "/a", "ts": "2024-01-01 00:02:05.000"}',
]


def _setup(tmp_path: Path, spark, sink_path: Path) -> Engine:
    data = tmp_path / "clicks.json"
    data.write_text("\n".join(ROWS) + "\n")
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = f"""
    CREATE TABLE clicks (user_id BIGINT, page STRING, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');
    CREATE TABLE page_views (page STRING, window_start TIMESTAMP(3), n BIGINT)
    WITH ('connector' = 'filesystem', 'path' = '{sink_path}', 'format' = 'csv');
    """
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    return engine


_run = run_statement


def _sink_rows(path: Path) -> list[tuple[str, ...]]:
    rows = []
    for f in sorted(path.glob("*.csv")):
        with open(f) as fh:
            rows.extend(tuple(r) for r in csv.reader(fh))
    return sorted(rows)


INSERT = """INSERT INTO page_views SELECT page, window_start, COUNT(*)
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY page, window_start, window_end"""

EXPECTED = [
    ("/a", "2024-01-01 00:00:00.000", "2"),
    ("/a", "2024-01-01 00:02:00.000", "1"),
    ("/b", "2024-01-01 00:01:00.000", "1"),
]


def test_a_bounded_insert_writes_every_window_once_and_a_rerun_resumes_complete(tmp_path, spark):
    sink = tmp_path / "views"
    engine = _setup(tmp_path, spark, sink)
    job = _run(engine, INSERT)
    assert job.status == Status.FINISHED and not job.already_complete
    assert [(p, t[:19], n) for p, t, n in _sink_rows(sink)] == [(p, t[:19], n) for p, t, n in EXPECTED]
    again = _run(engine, INSERT)
    assert again.status == Status.FINISHED and again.already_complete
    assert len(_sink_rows(sink)) == 3  # nothing written twice


def test_a_bounded_read_in_several_batches_ends_in_one_run_with_the_marker_in_its_last_batch(tmp_path, spark):
    """One file per micro-batch: the end-of-input marker comes with the third file, not before it
    (no row is late) and not in a second run (whose start and planning would cost one more batch
    and a restart): four batches, the last one emitting what the marker's watermark closes."""
    sink, data = tmp_path / "views", tmp_path / "clicks"
    data.mkdir()
    for i, rows in enumerate((ROWS[:2], ROWS[2:3], ROWS[3:])):
        (data / f"part-{i}.json").write_text("\n".join(rows) + "\n")
        in_read_order(data / f"part-{i}.json", i)
    engine = _setup(tmp_path, spark, sink)
    ddl = f"CREATE TABLE clicks_in_batches WITH ('path' = '{data}', 'source.max-files-per-trigger' = '1') LIKE clicks;"
    engine.plan(parse_script(ddl).statements[0])
    job = _run(engine, INSERT.replace("TABLE clicks,", "TABLE clicks_in_batches,"))
    assert job.status == Status.FINISHED, job.error
    assert [(p, t[:19], n) for p, t, n in _sink_rows(sink)] == [(p, t[:19], n) for p, t, n in EXPECTED]
    assert [(s.batch_id, s.input_rows) for s in job.history] == [(0, 2), (1, 1), (2, 1 + 1), (3, 0)]


def test_values_in_a_streaming_job_are_a_bounded_stream(tmp_path, spark):
    """INSERT ... VALUES (Flink's everyday way to put rows in a table) runs in streaming mode and
    ends by itself; VALUES unioned with a stream too; a rerun writes nothing twice."""
    sink = tmp_path / "views"
    engine = _setup(tmp_path, spark, sink)
    insert = "INSERT INTO page_views VALUES ('/x', TIMESTAMP '2024-01-01 00:00:00', 7), ('/y', NULL, CAST(NULL AS BIGINT))"
    job = _run(engine, insert)
    assert job.status == Status.FINISHED and job.bounded, job.error
    assert [(p, t[:19], n) for p, t, n in _sink_rows(sink)] == [("/x", "2024-01-01 00:00:00", "7"), ("/y", "", "")]
    assert _run(engine, insert).already_complete and len(_sink_rows(sink)) == 2
    # a second table: Spark's file sink skips the batches its directory's log has already
    # committed, whichever job committed them
    other = tmp_path / "other"
    engine.plan(parse_script(f"CREATE TABLE other WITH ('path' = '{other}') LIKE page_views;").statements[0])
    mixed = ("INSERT INTO other SELECT page, ts, user_id FROM clicks WHERE user_id = 3 "
             "UNION ALL SELECT * FROM (VALUES ('/z', TIMESTAMP '2024-01-01 00:00:00', CAST(9 AS BIGINT)))")
    job = _run(engine, mixed)
    assert job.status == Status.FINISHED, job.error
    assert [r[0] for r in _sink_rows(other)] == ["/a", "/z"]


def test_insert_overwrite_replaces_in_batch_and_is_refused_in_streaming(tmp_path, spark):
    sink = tmp_path / "views"
    engine = _setup(tmp_path, spark, sink)
    with pytest.raises(SqlError) as caught:
        engine.start(engine.plan(parse_script(INSERT.replace("INSERT INTO", "INSERT OVERWRITE")).statements[0]))
    assert "INSERT OVERWRITE runs only in batch mode" in caught.value.message
    engine.plan(parse_script("SET 'execution.runtime-mode' = 'batch';").statements[0])
    _run(engine, INSERT)
    _run(engine, INSERT)
    assert len(_sink_rows(sink)) == 6  # INSERT INTO appends
    job = _run(engine, INSERT.replace("INSERT INTO", "INSERT OVERWRITE"))
    assert job.status == Status.FINISHED
    assert [(p, n) for p, _, n in _sink_rows(sink)] == [(p, n) for p, _, n in EXPECTED]


def test_a_ttl_bound_aggregation_runs_as_a_changelog_operator(tmp_path, spark):
    """Spark's own aggregation cannot forget a key: under a state TTL the aggregation runs as a
    changelog operator (which enforces it) and the job says so; within the TTL the counts are
    the plain ones."""
    engine = _setup(tmp_path, spark, tmp_path / "views")
    engine.plan(parse_script("SET 'table.exec.state.ttl' = '1 h';").statements[0])
    # a streaming run (shown as its table, the bounded query would run as one batch job)
    engine.plan(parse_script("SET 'sqlengine.bounded.batch' = 'false';").statements[0])
    job = _run(engine, "SELECT page, COUNT(*) AS n FROM clicks GROUP BY page;")
    assert job.status.value == "FINISHED", job.error
    ((operator, how),) = job.operators
    assert operator.startswith("GroupAggregate") and how == "changelog operator (a state TTL is in force)"
    pages = [json.loads(r)["page"] for r in ROWS]
    assert sorted(job.result.rows()) == sorted((p, pages.count(p)) for p in set(pages))


def test_a_user_function_is_refused_before_a_job_starts(tmp_path, spark):
    engine = _setup(tmp_path, spark, tmp_path / "views")
    engine.plan(parse_script("CREATE FUNCTION shout AS 'com.example.Shout';").statements[0])
    with pytest.raises(SqlError) as caught:
        engine.start(engine.plan(parse_script("SELECT page,\n  shout(page) FROM clicks;").statements[0]))
    assert "user-defined function `shout`" in caught.value.message
    assert (caught.value.line, caught.value.column) == (2, 3)
    assert engine.job_list() == []


def test_a_missing_source_path_is_a_positioned_error_and_no_job(tmp_path, spark):
    engine = _setup(tmp_path, spark, tmp_path / "views")
    engine.plan(parse_script(
        f"CREATE TABLE gone (page STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}/gone', 'format' = 'json');"
    ).statements[0])
    with pytest.raises(SqlError) as caught:
        engine.start(engine.plan(parse_script("SELECT page\nFROM gone;").statements[0]))
    assert "Table `gone` (option 'path')" in caught.value.message and "does not exist" in caught.value.message
    assert (caught.value.line, caught.value.column) == (2, 6)
    assert engine.job_list() == []


def test_batch_mode_runs_an_insert_to_completion(tmp_path, spark):
    engine = _setup(tmp_path, spark, tmp_path / "views")
    engine.plan(parse_script("SET 'execution.runtime-mode' = 'batch';").statements[0])
    job = _run(engine, INSERT)
    assert job.batch and job.ends_by_itself and not job.bounded
    assert job.status == Status.FINISHED, job.error
    assert [(p, t[:19], n) for p, t, n in _sink_rows(tmp_path / "views")] == [(p, t[:19], n) for p, t, n in EXPECTED]


def _trigger(query) -> str:
    """The trigger Spark runs a query with, as the JVM prints it."""
    return query._jsq.streamingQuery().trigger().toString()


def test_a_monitored_source_sets_how_often_batches_start(tmp_path, spark):
    """Flink's source.monitor-interval is how often new files are looked for: the job triggers
    that often instead of listing the directory back to back; a generator beside it wins."""
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "1.json").write_text(ROWS[0] + "\n")
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = f"""
    CREATE TABLE watched (user_id BIGINT, page STRING, ts TIMESTAMP(3))
    WITH ('connector' = 'filesystem', 'path' = '{incoming}', 'format' = 'json', 'source.monitor-interval' = '3 s');
    CREATE TABLE ticks (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');
    CREATE TABLE out1 (page STRING) WITH ('connector' = 'blackhole');
    CREATE TABLE out2 (n BIGINT) WITH ('connector' = 'blackhole');
    """
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    watched = engine.start(engine.plan(parse_script("INSERT INTO out1 SELECT page FROM watched;").statements[0]))
    both = engine.start(engine.plan(parse_script(
        "EXECUTE STATEMENT SET BEGIN INSERT INTO out1 SELECT page FROM watched; INSERT INTO out2 SELECT n FROM ticks; END;"
    ).statements[0]))
    try:
        for job in (watched, both):
            for _ in range(200):
                if job.error_detail is not None or len(getattr(job, "_queries", [])) == len(job.pipelines):
                    break
                job.wait(0.05)
        assert watched.error_detail is None and both.error_detail is None
        assert _trigger(watched._queries[0]) == "ProcessingTimeTrigger(3000)"
        assert {_trigger(q) for q in both._queries} == {"ProcessingTimeTrigger(0)"}
    finally:
        engine.stop_all()


def test_a_dead_letter_source_runs_its_side_query_with_the_job(tmp_path, spark):
    """'errors.mode' = 'dead-letter' in a streaming job: the good rows reach the sink and the bad
    records their dead-letter files, written by a side query the job starts and waits for (the
    job called a method the side query does not have, and failed at its start)."""
    data = tmp_path / "in"
    data.mkdir()
    (data / "part-1.json").write_text(ROWS[0] + "\n" + '{"user_id": "not a number", "page": "/x"}\n' + ROWS[1] + "\n")
    letters, sink = tmp_path / "letters", tmp_path / "out"
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = f"""
    CREATE TABLE raw_clicks (user_id BIGINT, page STRING, ts TIMESTAMP(3))
    WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json',
          'errors.mode' = 'dead-letter', 'errors.dead-letter.path' = '{letters}');
    CREATE TABLE pages (page STRING) WITH ('connector' = 'filesystem', 'path' = '{sink}', 'format' = 'csv');
    """
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    # the query reads user_id: Spark parses only the columns a query reads (docs/connectors.md)
    job = _run(engine, "INSERT INTO pages SELECT page FROM raw_clicks WHERE user_id > 0;")
    assert job.status == Status.FINISHED, job.error_detail
    assert len(job._queries) == 2  # the INSERT and its dead-letter writer
    assert sorted(r[0] for r in _sink_rows(sink)) == ["/a", "/a"]
    written = [line for f in letters.glob("*.json") for line in f.read_text().splitlines()]
    assert len(written) == 1 and "not a number" in written[0]


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2])
def test_a_job_stopped_while_it_starts_leaves_no_query_running(tmp_path, spark, delay):
    import time

    engine = Engine(home=tmp_path / "home", spark=spark)
    (ddl,) = parse_script("CREATE TABLE g (k INT) WITH ('connector' = 'datagen', 'rows-per-second' = '10');").statements
    engine.plan(ddl)
    (stmt,) = parse_script("SELECT k, COUNT(*) FROM g GROUP BY k;").statements
    job = engine.start(engine.plan(stmt))
    time.sleep(delay)  # stop() lands before, during or after the query's start
    job.stop()
    assert job.wait(60) and job.status == Status.CANCELED
    assert job.spark is not None and job.spark.streams.active == []


def test_progress_is_read_from_the_newest_back_to_the_first_seen(tmp_path, spark):
    """A job's monitor converts only the progress updates it has not seen (Spark keeps 100, and
    converting them all twice a second cost a long job's driver a tenth of a core): oldest first,
    nothing twice, and everything when nothing was seen."""
    from sqlengine.progress import new_progress

    data = tmp_path / "in"
    data.mkdir()
    for i in range(4):
        (data / f"part-{i}.json").write_text(f'{{"v": {i}}}\n{{"v": {i + 10}}}\n')
        in_read_order(data / f"part-{i}.json", i)
    df = spark.readStream.schema("v INT").option("maxFilesPerTrigger", 1).json(str(data))
    query = df.writeStream.format("noop").option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start()
    query.awaitTermination()
    every = new_progress(query, set())
    assert [(p["batchId"], p["numInputRows"]) for p in every] == [(0, 2), (1, 2), (2, 2), (3, 2)]
    assert [p["timestamp"] for p in every] == [p.timestamp for p in query.recentProgress]
    seen = {(p["batchId"], p["timestamp"]) for p in every[:2]}
    assert [p["batchId"] for p in new_progress(query, seen)] == [2, 3]
    assert new_progress(query, seen | {(p["batchId"], p["timestamp"]) for p in every}) == []


def test_a_bounded_job_whose_output_waits_on_no_watermark_ends_with_its_last_batch_of_input(tmp_path, spark):
    """The join's state is released by the watermark (each click within its visit), but it emits
    its rows at once: after the input's one batch Spark would run another, only to evict that
    state, and the job then ends. It runs no such batch; a window, whose rows wait on the
    watermark, still gets its closing batch (the test above: batch 3)."""
    engine = _setup(tmp_path, spark, tmp_path / "views")
    visits = tmp_path / "visits.json"
    visits.write_text('{"user_id": 1, "since": "2024-01-01 00:00:00", "until": "2024-01-01 00:00:50"}\n'
                      '{"user_id": 3, "since": "2024-01-01 00:02:00", "until": "2024-01-01 00:03:00"}\n')
    ddl = f"""CREATE TABLE visits (user_id BIGINT, since TIMESTAMP(3), until TIMESTAMP(3),
      WATERMARK FOR since AS since - INTERVAL '5' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{visits}', 'format' = 'json');
    CREATE TABLE visit_pages (user_id BIGINT, page STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / "pages"}', 'format' = 'csv');"""
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    job = _run(engine, "INSERT INTO visit_pages SELECT c.user_id, c.page FROM clicks c, visits v "
                       "WHERE c.user_id = v.user_id AND c.ts BETWEEN v.since AND v.until")
    assert job.status == Status.FINISHED, job.error
    assert _sink_rows(tmp_path / "pages") == [("1", "/a"), ("3", "/a")]
    assert [(s.batch_id, s.input_rows) for s in job.history] == [(0, 6)]
    assert [op.name for op in job.history[-1].operators] == ["symmetricHashJoin"]  # state the watermark releases


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_a_partitioned_sink_writes_each_row_once_with_more_partitions_than_open_writers(tmp_path, spark, mode):
    """A PARTITIONED BY table is written with 16 files open at once per task (SQL_DEFAULTS), no sort
    first; a task that writes 40 partitions sorts the rows of the ones past the 16th. Every row
    lands once, in its partition's directory, in either runtime mode; a SET of the Spark key wins."""
    (tmp_path / "in").mkdir()
    data = tmp_path / "in" / "events.json"
    # one file, one task: 400 rows over 40 partitions, interleaved so no partition's rows are together
    data.write_text("".join(json.dumps({"id": i, "part": f"p{i % 40:02d}"}) + "\n" for i in range(400)))
    out = tmp_path / "out"
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = f"""
    SET 'execution.runtime-mode' = '{mode}';
    CREATE TABLE events (id INT, part STRING) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');
    CREATE TABLE parts (id INT, part STRING) PARTITIONED BY (part)
    WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'csv');
    """
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    job = _run(engine, "INSERT INTO parts SELECT id, part FROM events")
    assert job.status == Status.FINISHED, job.error
    assert job.spark.conf.get("spark.sql.maxConcurrentOutputFileWriters") == "16"
    written = {}
    for f in out.glob("part=*/*.csv"):
        for line in f.read_text().splitlines():
            written.setdefault(f.parent.name, []).append(int(line))
    assert sorted(written) == [f"part=p{k:02d}" for k in range(40)]
    assert {p: sorted(ids) for p, ids in written.items()} == {
        f"part=p{k:02d}": list(range(k, 400, 40)) for k in range(40)
    }
    engine.plan(parse_script("SET 'spark.sql.maxConcurrentOutputFileWriters' = '0';").statements[0])
    job = _run(engine, "INSERT INTO parts SELECT id, part FROM events")
    assert job.status == Status.FINISHED, job.error
    assert job.spark.conf.get("spark.sql.maxConcurrentOutputFileWriters") == "0"
