"""Checkpoints and savepoints on HDFS (Hadoop's mini cluster on loopback, scripts/hdfs_cluster.py),
as on a cluster whose machines share no disk: 'execution.checkpointing.dir' is an hdfs:// URI. Spark writes the state there; sqlengine
reads and writes the rest there itself (the plan's fingerprint, SHOW STATE, the savepoint's copy,
the resume from it), and the windows come out as in a run that never stopped (the same flow on
local directories: tests/repl/test_shell_savepoints.py). The savepoint is on HDFS too, or, with no
savepoint directory set, in the home: copied from HDFS to the local disk and back."""

from __future__ import annotations

import re
import uuid
from collections import Counter

import pytest

from sqlengine.storage import HadoopPath, Location, location
from tests.repl.test_shell_savepoints import COUNTS, SUMS, WIDER, sink_tables, windows, written
from tests.repl.test_shell_spark import table_ddl, write_events

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.mark.parametrize("savepoints", ["hdfs", "home"])
def test_a_job_checkpoints_on_hdfs_and_resumes_from_a_savepoint(spark_engine, shell_of, hdfs, tmp_path, savepoints):
    root = f"{hdfs}/shell-{uuid.uuid4().hex[:8]}"
    events, out, wide = tmp_path / "events", tmp_path / "out", tmp_path / "wide"
    events.mkdir()
    write_events(events, "a.json", 0, 15)
    sh = shell_of(spark_engine)
    sh.run(f"SET 'execution.checkpointing.dir' = '{root}/checkpoints';")
    if savepoints == "hdfs":
        sh.run(f"SET 'execution.checkpointing.savepoint-dir' = '{root}/savepoints';")
    saved_under = f"{root}/savepoints" if savepoints == "hdfs" else str(spark_engine.home / "savepoints")
    sh.run(table_ddl("bids", events, unbounded=True))
    sink_tables(sh, out, wide)
    sh.run(COUNTS, timeout=120)
    (job,) = spark_engine.job_list()
    assert str(job.checkpoint).startswith(f"{root}/checkpoints/counts-")
    sh.wait_until(lambda: len(written(out)) == 2, timeout=120, what="the first window")
    checkpoint = HadoopPath(str(job.checkpoint))
    assert (checkpoint / "sqlengine-plan.json").is_file() and [p.name for p in checkpoint.glob("q0/offsets/0")] == ["0"]
    assert not (spark_engine.home / "checkpoints").exists()

    out_text = sh.run(f"STOP JOB '{job.id}' WITH SAVEPOINT;", timeout=120)
    found = re.search(r"\| (\S+/savepoint-\S+) +\|", out_text)
    assert found, out_text
    savepoint: Location = location(found.group(1))
    assert str(savepoint).startswith(f"{saved_under}/savepoint-{job.id}-")
    assert (savepoint / "savepoint.json").is_file() and (savepoint / "q0" / "offsets" / "0").is_file()
    state = sh.run(f"SHOW STATE '{job.id}';", timeout=120)  # the open window [10, 20), read from HDFS
    assert f"checkpoint {job.checkpoint}, state backend 'hashmap'" in state, state
    assert re.search(r"stateStoreSave\s*\|\s*default\s*\|\s*\d+\s*\|\s*\d+\s*\|\s*[1-9]", state), state

    write_events(events, "b.json", 15, 35)
    sh.run(f"SET 'execution.savepoint.path' = '{savepoint}';")
    refused = sh.run(SUMS, timeout=120)
    assert f"Cannot resume from savepoint {savepoint}: WindowAggregate #2 aggregate changed" in refused, refused
    resumed = sh.run(WIDER, timeout=120)
    assert f"[INFO] Resuming from savepoint {savepoint}." in resumed, resumed
    again = next(j for j in spark_engine.job_list() if j is not job)
    assert str(again.checkpoint).startswith(f"{root}/checkpoints/counts_wide-")
    sh.wait_until(lambda: len(written(wide)) >= 4 or again.done, timeout=120, what=f"the windows after the restart (job {again.id})")
    sh.run(f"STOP JOB '{again.id}';", timeout=120)
    assert not again.error_detail, f"job {again.id} ended {again.status.value}: {again.error_detail!r}"
    # the savepoint's own file stays with it, not in the checkpoint it was copied into
    assert not (HadoopPath(str(again.checkpoint)) / "savepoint.json").exists()
    every = windows(written(out)) + windows(written(wide))
    assert every == Counter({(item, f"00:00:{start:02d}", 5): 1 for item in ("apple", "pear") for start in (0, 10, 20)}), every
