"""Savepoints in the shell, on real local Spark and real files: STOP JOB ... WITH SAVEPOINT answers
with the savepoint's path; SET 'execution.savepoint.path' starts a changed INSERT from it when the
change leaves the state meaning what it meant (a filter after the window aggregation, a new sink
column computed without state), and the windows open at the stop close with every row counted,
as a run that never stopped; an incompatible change is refused before anything starts."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from sqlengine.connectors.file_sink_owner import batch_ids
from sqlengine.jobs import interrupted_batches
from tests.repl.test_shell_spark import table_ddl, write_events
from tests.sink_log import committed_lines

pytestmark = [pytest.mark.spark, pytest.mark.slow]

WINDOW = "TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
COUNTS = f"INSERT INTO counts SELECT item, window_start, COUNT(*) FROM {WINDOW} GROUP BY item, window_start, window_end;"
# compatible: a filter after the last stateful operator, and a new column computed from its result
WIDER = (
    "INSERT INTO counts_wide SELECT item, window_start, c, c * 10 FROM "
    f"(SELECT item, window_start, COUNT(*) AS c FROM {WINDOW} GROUP BY item, window_start, window_end) WHERE c > 0;"
)
SUMS = f"INSERT INTO counts SELECT item, window_start, SUM(price) FROM {WINDOW} GROUP BY item, window_start, window_end;"


def written(directory: Path) -> list[dict]:
    """What a reader of the sink sees: the rows of the files its log commits."""
    return committed_lines(directory)


def windows(rows: list[dict]) -> Counter:
    return Counter((r["item"], r["window_start"][11:19], r["c"]) for r in rows)


def sink_tables(sh, out: Path, wide: Path) -> None:
    """The tables COUNTS and WIDER write, as JSON files under ``out`` and ``wide``."""
    sh.run(f"CREATE TABLE counts (item STRING, window_start TIMESTAMP_LTZ(3), c BIGINT) WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');")
    sh.run(
        "CREATE TABLE counts_wide (item STRING, window_start TIMESTAMP_LTZ(3), c BIGINT, c10 BIGINT) "
        f"WITH ('connector' = 'filesystem', 'path' = '{wide}', 'format' = 'json');"
    )


def test_a_savepoint_resumes_a_compatible_change_and_refuses_an_incompatible_one(spark_engine, shell_of, tmp_path):
    events, out, wide = tmp_path / "events", tmp_path / "out", tmp_path / "wide"
    events.mkdir()
    write_events(events, "a.json", 0, 15)  # one event a second, apple and pear in turn
    sh = shell_of(spark_engine)
    sh.run(table_ddl("bids", events, unbounded=True))
    sink_tables(sh, out, wide)
    sh.run(COUNTS, timeout=120)
    (job,) = spark_engine.job_list()
    # the watermark (14 s - 1 s) closes [0, 10); [10, 20) is open, its first five rows in the state
    sh.wait_until(lambda: len(written(out)) == 2, timeout=120, what="the first window")
    out_text = sh.run(f"STOP JOB '{job.id}' WITH SAVEPOINT;", timeout=120)
    assert "| savepoint path" in out_text, out_text
    savepoint = Path(re.search(r"\| (\S*/savepoints/savepoint-\S+) +\|", out_text).group(1))
    assert savepoint.parent == spark_engine.home / "savepoints" and savepoint.name.startswith(f"savepoint-{job.id}-")
    assert (savepoint / "sqlengine-plan.json").exists() and (savepoint / "q0" / "offsets").exists()
    assert job.status.value == "CANCELED"

    write_events(events, "b.json", 15, 35)
    sh.run(f"SET 'execution.savepoint.path' = '{savepoint}';")
    refused = sh.run(SUMS, timeout=120)
    assert f"Cannot resume from savepoint {savepoint}: WindowAggregate #2 aggregate changed: COUNT(*) → SUM(price)" in refused, refused
    assert "hint: to start without it, RESET 'execution.savepoint.path'" in refused
    assert len(spark_engine.job_list()) == 1  # nothing started

    resumed = sh.run(WIDER, timeout=120)
    assert f"[INFO] Resuming from savepoint {savepoint}." in resumed, resumed
    assert "the checkpoint" not in resumed  # a new key: no earlier run of this statement to replace
    again = next(j for j in spark_engine.job_list() if j is not job)
    # the watermark (34 s - 1 s) closes [10, 20) and [20, 30)
    sh.wait_until(
        lambda: len(written(wide)) >= 4 or again.done, timeout=120, what=f"the windows after the restart (job {again.id})"
    )
    sh.run(f"STOP JOB '{again.id}';", timeout=120)
    assert not again.error_detail, f"job {again.id} ended {again.status.value}: {again.error_detail!r}"
    assert all(r["c10"] == r["c"] * 10 for r in written(wide))
    # as a run that never stopped: [10, 20) counts the rows before the savepoint too (5 per item,
    # not the 2 or 3 after it), and no window comes out twice: the savepoint's stop ran the batch it
    # interrupted to its end (if the stop fell inside the batch closing [0, 10), that window is in
    # `out` and not again in `wide`)
    every = windows(written(out)) + windows(written(wide))
    assert every == Counter(
        {(item, f"00:00:{start:02d}", 5): 1 for item in ("apple", "pear") for start in (0, 10, 20)}
    ), every


def test_a_savepoint_of_a_job_whose_batches_run_back_to_back_holds_no_half_batch(spark_engine, shell_of, tmp_path):
    """Spark stops a query in the middle of its micro-batch, and a generator's batches run back
    to back, so the stop nearly always falls inside one: the job runs that batch to its end before
    the savepoint is copied. Then the savepoint's last planned batch is committed, and the sink has
    committed no batch the savepoint would run again."""
    out = tmp_path / "out"
    sh = shell_of(spark_engine)
    sh.run("CREATE TABLE gen (k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '9');")
    sh.run(f"CREATE TABLE copied (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '{out}', 'format' = 'json');")
    sh.run("INSERT INTO copied SELECT k, v FROM gen;", timeout=120)
    (job,) = spark_engine.job_list()
    sh.wait_until(lambda: len(batch_ids(out / "_spark_metadata")) >= 3, timeout=120, what="three committed batches")
    answer = sh.run(f"STOP JOB '{job.id}' WITH SAVEPOINT;", timeout=120)
    savepoint = Path(re.search(r"\| (\S*/savepoints/savepoint-\S+) +\|", answer).group(1))
    planned, committed = batch_ids(savepoint / "q0" / "offsets"), batch_ids(savepoint / "q0" / "commits")
    assert max(planned) == max(committed), (planned, committed)
    assert max(batch_ids(out / "_spark_metadata")) == max(committed)
    assert interrupted_batches(job.checkpoint) == {}
    assert job.status.value == "CANCELED" and job.error_detail is None
