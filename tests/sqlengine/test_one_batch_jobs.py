"""A bounded streaming job whose input comes in one micro-batch runs as one batch job
(planner.analysis.one_batch, sqlengine.engine): the same rows as its streaming run, FINISHED in its
checkpoint so a second run does nothing, and a streaming job wherever there is a checkpoint to
resume, a savepoint, or 'sqlengine.bounded.batch' = 'false'."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from tests.sqlengine.helpers import run_statement

pytestmark = pytest.mark.spark

# rows out of order within the watermark's delay, and one 20 s behind the latest: a streaming run
# over several micro-batches would drop it as late; read in one, no row is late, as in batch
ROWS = [
    '{"user_id": 1, "page": "/a", "ts": "2024-01-01 00:00:01.000"}',
    '{"user_id": 2, "page": "/a", "ts": "2024-01-01 00:00:30.000"}',
    '{"user_id": 1, "page": "/b", "ts": "2024-01-01 00:01:10.000"}',
    '{"user_id": 3, "page": "/a", "ts": "2024-01-01 00:00:50.000"}',
    '{"user_id": 3, "page": "/a", "ts": "2024-01-01 00:02:05.000"}',
]
WINDOWED = ("SELECT page, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
            "GROUP BY page, window_start, window_end")


def _engine(tmp_path: Path, spark) -> Engine:
    data = tmp_path / "clicks.json"
    data.write_text("\n".join(ROWS) + "\n")
    engine = Engine(home=tmp_path / "home", spark=spark)
    ddl = f"""
    CREATE TABLE clicks (user_id BIGINT, page STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');
    CREATE TABLE hole (page STRING, window_start TIMESTAMP(3), n BIGINT) WITH ('connector' = 'blackhole');
    """
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    return engine


def _run(engine: Engine, sql: str):
    job = run_statement(engine, sql)
    assert job.status.value == "FINISHED", job.error_detail
    return job


def _minutes(rows) -> Counter:
    return Counter((page, start.strftime("%H:%M"), n) for page, start, n in rows)


def test_a_windowed_select_over_one_micro_batch_runs_as_one_batch_with_the_streaming_rows(tmp_path, spark):
    engine = _engine(tmp_path, spark)
    try:
        job = _run(engine, WINDOWED + ";")
        assert job.one_batch and job.batch and not job.bounded
        assert not job.history, "a batch job reports no streaming progress"
        assert any("runs as one batch job" in n for n in job.notes)
        expected = Counter({("/a", "00:00", 3): 1, ("/b", "00:01", 1): 1, ("/a", "00:02", 1): 1})
        assert job.result is not None and _minutes(job.result.rows()) == expected

        engine.planner.settings["sqlengine.bounded.batch"] = "false"
        streamed = _run(engine, WINDOWED + ";")
        assert not streamed.one_batch and streamed.bounded and streamed.history
        assert streamed.result is not None and _minutes(streamed.result.rows()) == expected
    finally:
        engine.stop_all()


def test_an_insert_run_as_one_batch_leaves_its_checkpoint_finished_and_a_second_run_does_nothing(tmp_path, spark):
    engine = _engine(tmp_path, spark)
    try:
        first = _run(engine, f"INSERT INTO hole {WINDOWED};")
        assert first.one_batch and not first.already_complete
        assert (first.checkpoint / "FINISHED").exists()
        assert not list(first.checkpoint.glob("q*")), "no streaming query ran"
        again = _run(engine, f"INSERT INTO hole {WINDOWED};")
        # the checkpoint holds something now: the job goes the streaming way, which finds it finished
        assert not again.one_batch and again.bounded and again.already_complete
        assert again.checkpoint == first.checkpoint
    finally:
        engine.stop_all()


def test_a_checkpoint_of_a_streaming_run_is_resumed_as_a_streaming_job(tmp_path, spark):
    engine = _engine(tmp_path, spark)
    try:
        sql = f"SET 'pipeline.name' = 'views'; INSERT INTO hole {WINDOWED};"
        engine.planner.settings["sqlengine.bounded.batch"] = "false"
        set_stmt, insert = parse_script(sql).statements
        engine.plan(set_stmt)
        streamed = engine.start(engine.plan(insert))
        streamed.wait()
        assert streamed.bounded and streamed.history and list(streamed.checkpoint.glob("q*"))
        # the setting back on: the checkpoint there is resumed (and is finished), not run again as a batch
        del engine.planner.settings["sqlengine.bounded.batch"]
        again = _run(engine, f"INSERT INTO hole {WINDOWED};")
        assert not again.one_batch and again.already_complete
    finally:
        engine.stop_all()


def test_a_select_read_in_several_micro_batches_stays_streaming(tmp_path, spark):
    engine = _engine(tmp_path, spark)
    try:
        data = tmp_path / "clicks.json"
        for stmt in parse_script(f"""
            CREATE TABLE trickle (user_id BIGINT, page STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
            WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json', 'source.max-files-per-trigger' = '1');
        """).statements:
            engine.plan(stmt)
        job = _run(engine, WINDOWED.replace("TABLE clicks", "TABLE trickle") + ";")
        assert not job.one_batch and job.bounded and job.history
    finally:
        engine.stop_all()


def test_updated_results_into_sinks_that_discard_rows_run_as_one_batch(tmp_path, spark):
    """A group aggregation and a Top-2 (a changelog operator in a streaming run) into blackholes."""
    engine = _engine(tmp_path, spark)
    try:
        for stmt in parse_script("""
            CREATE TABLE counts (page STRING, n BIGINT) WITH ('connector' = 'blackhole');
            CREATE TABLE top2 (page STRING, user_id BIGINT) WITH ('connector' = 'blackhole');
        """).statements:
            engine.plan(stmt)
        job = _run(engine, "EXECUTE STATEMENT SET BEGIN "
                           "INSERT INTO counts SELECT page, COUNT(*) FROM clicks GROUP BY page; "
                           "INSERT INTO top2 SELECT page, user_id FROM (SELECT *, ROW_NUMBER() OVER "
                           "(PARTITION BY page ORDER BY user_id DESC) AS r FROM clicks) WHERE r <= 2; END;")
        assert job.one_batch and job.batch and len(job.pipelines) == 2
        assert (job.checkpoint / "FINISHED").exists() and not list(job.checkpoint.glob("q*"))
    finally:
        engine.stop_all()


def test_an_updated_query_shown_as_its_table_runs_as_one_batch_and_shown_as_changes_streams(tmp_path, spark):
    engine = _engine(tmp_path, spark)
    try:
        sql = "SELECT page, COUNT(*) AS n FROM clicks GROUP BY page;"
        table = _run(engine, sql)
        assert table.one_batch and table.result is not None
        assert sorted(table.result.rows()) == [("/a", 4), ("/b", 1)]
        # 'sqlengine run --changelog' prints the changes: the streaming run, whose changes they are
        engine.planner.results_as_changes = True
        changes = _run(engine, sql)
        assert not changes.one_batch and changes.bounded and changes.history
        assert changes.result is not None and sorted(changes.result.rows()) == [("/a", 4), ("/b", 1)]
    finally:
        engine.stop_all()
