"""MATCH_RECOGNIZE on Spark, beyond the conformance queries (k01-k07, checked against Flink): a
continuous job lets a match out only when the watermark passes its last row, and keeps the
partial match across micro-batches; a match the AFTER MATCH strategy cannot go on from fails the
job with Flink's one line, in both modes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.errors import describe
from sqlengine.jobs import Status

pytestmark = pytest.mark.spark

PATTERN = (
    "SELECT k, a, b, c FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts "
    "MEASURES A.v AS a, LAST(B.v) AS b, C.v AS c AFTER MATCH SKIP PAST LAST ROW PATTERN (A B+? C) "
    "DEFINE A AS v = 1, B AS v > 1, C AS v = 0)"
)


def _engine(tmp_path: Path, spark, incoming: Path, *, watched: bool) -> Engine:
    engine = Engine(home=tmp_path / "home", spark=spark)
    watch = ", 'source.monitor-interval' = '1 s'" if watched else ""  # unbounded: new files are read
    ddl = (f"CREATE TABLE t (ts TIMESTAMP(3), k INT, v INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
           f"WITH ('connector' = 'filesystem', 'path' = '{incoming}', 'format' = 'json'{watch});")
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    return engine


def _write(path: Path, rows: list[tuple[int, int, int]]) -> None:
    path.write_text("".join(f'{{"ts": "2024-01-01 00:00:{s:02d}.000", "k": {k}, "v": {v}}}\n' for s, k, v in rows))


def _wait(job, predicate, timeout: float = 90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and job.error_detail is None:
        rows = job.result.rows()
        if predicate(rows):
            return rows
        time.sleep(0.3)
    raise AssertionError(f"not reached in {timeout} s: {job.result.rows()} ({job.error})")


def test_a_match_spanning_micro_batches_comes_out_when_the_watermark_passes_it(tmp_path, spark):
    incoming = tmp_path / "in"
    incoming.mkdir()
    _write(incoming / "0.json", [(1, 1, 1), (2, 1, 5), (3, 1, 7)])  # A, then B's rows: a partial match
    engine = _engine(tmp_path, spark, incoming, watched=True)
    (stmt,) = parse_script(PATTERN + ";").statements
    job = engine.start(engine.plan(stmt))
    try:
        _wait(job, lambda rows: len(job.history) > 0, timeout=120)  # the first file is read
        _write(incoming / "1.json", [(4, 1, 0), (4, 2, 9)])  # C completes it; the watermark: 4 s - 1 s
        _wait(job, lambda rows: sum(s.input_rows for s in job.history) >= 5)
        time.sleep(3)  # batches run on (every second): the match waits for the watermark
        assert job.result.rows() == []  # its last row (4 s) is still ahead of the watermark
        _write(incoming / "2.json", [(9, 2, 9)])  # the watermark moves to 8 s: the match goes out
        rows = _wait(job, lambda rows: rows)
        assert rows == [(1, 1, 7, 0)]
    finally:
        engine.stop_all()


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_skipping_to_the_first_row_of_a_match_fails_the_job_with_flinks_line(tmp_path, spark, mode):
    incoming = tmp_path / "in"
    incoming.mkdir()
    _write(incoming / "0.json", [(1, 1, 1), (2, 1, 5), (3, 1, 0), (9, 2, 9)])
    engine = _engine(tmp_path, spark, incoming, watched=False)
    engine.planner.settings["execution.runtime-mode"] = mode
    (stmt,) = parse_script(PATTERN.replace("SKIP PAST LAST ROW", "SKIP TO FIRST A") + ";").statements
    outcome = engine.plan(stmt)
    job = engine.start(outcome)
    assert job.wait(120)
    assert job.status == Status.FAILED and job.error_detail is not None
    assert describe(job.error_detail) == "Could not skip to first element of a match."


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_more_order_by_keys_order_the_rows_of_one_time(tmp_path, spark, mode):
    """As Flink (checked with PyFlink): rows 3, 1, 2 of one time, then 9, taken by ORDER BY ts, v DESC."""
    incoming = tmp_path / "in"
    incoming.mkdir()
    _write(incoming / "0.json", [(1, 1, 3), (1, 1, 1), (1, 1, 2), (2, 1, 9), (9, 2, 0)])
    engine = _engine(tmp_path, spark, incoming, watched=False)
    engine.planner.settings["execution.runtime-mode"] = mode
    (stmt,) = parse_script("SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts, v DESC MEASURES A.v AS a, B.v AS b, "
                           "C.v AS c, D.v AS d PATTERN (A B C D) DEFINE A AS v > 0);").statements
    job = engine.start(engine.plan(stmt))
    assert job.wait(120) and job.status == Status.FINISHED, job.error
    assert job.result is not None and job.result.rows() == [(1, 3, 2, 1, 9)]
