"""sqlengine.savepoints without Spark: which jobs a savepoint can be taken of, what an
'execution.savepoint.path' must name, the verdict before a checkpoint or savepoint is resumed,
and how a savepoint is laid into a job's checkpoint (the Spark side: tests/repl/test_shell_savepoints.py
and tests/repl/test_run_resume.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.resume import JobPrint
from sqlengine import savepoints
from sqlengine.checkpoint_root import NotLocal, savepoint_root
from sqlengine.jobs import Job, JobKind, Status
from tests.planner.test_resume import TOTALS, fingerprint

AVG = "INSERT INTO avgs SELECT user_id, COUNT(*), AVG(amount) FROM orders GROUP BY user_id;"


def job(tmp_path: Path, kind: JobKind = JobKind.INSERT, **fields: object) -> Job:
    return Job(id="0123456789ab", name="totals", sql=TOTALS, kind=kind, checkpoint=tmp_path / "ck", pipelines=[], bounded=False, **fields)


def checkpoint_of(directory: Path, printed: JobPrint, *, progress: bool = True) -> Path:
    """A checkpoint as a job leaves it: Spark's files of one query, and the fingerprint."""
    (directory / "q0" / "state" / "0").mkdir(parents=True)
    (directory / "q0" / "offsets").mkdir()
    (directory / "q0" / "metadata").write_text('{"id":"7d2c1e0a-0000-0000-0000-000000000000"}\n')
    if progress:
        (directory / "q0" / "offsets" / "0").write_text("v1\n")
        (directory / "q0" / "commits").mkdir()
        (directory / "q0" / "commits" / "0").write_text("v1\n")
    savepoints.write_print(directory, printed)
    return directory


def test_a_savepoint_is_refused_for_a_select_a_batch_job_and_one_that_ended(tmp_path):
    with pytest.raises(savepoints.SavepointError, match="is a SELECT: it keeps no checkpoint to take a savepoint of"):
        savepoints.check_can_take(job(tmp_path, JobKind.SELECT))
    with pytest.raises(savepoints.SavepointError, match="runs in batch mode"):
        savepoints.check_can_take(job(tmp_path, batch=True))
    with pytest.raises(savepoints.SavepointError) as ended:
        savepoints.check_can_take(job(tmp_path, status=Status.FINISHED))
    assert f"SET 'execution.savepoint.path' = '{tmp_path / 'ck'}' starts from it as from a savepoint" in str(ended.value)
    savepoints.check_can_take(job(tmp_path, status=Status.RUNNING))


def test_a_savepoint_copies_the_whole_checkpoint_and_says_what_it_was_taken_of(tmp_path):
    stopped = job(tmp_path, status=Status.CANCELED)
    checkpoint_of(stopped.checkpoint, fingerprint(TOTALS))
    path = savepoints.take(stopped, savepoint_root({}, tmp_path / "home"))
    assert path.parent == tmp_path / "home" / "savepoints" and path.name.startswith("savepoint-0123456789ab-")
    assert savepoints.read_print(path) == fingerprint(TOTALS)
    assert (path / "q0" / "offsets" / "0").exists()
    about = json.loads((path / savepoints.SAVEPOINT_FILE).read_text())
    assert (about["job"], about["statement"], about["checkpoint"]) == (stopped.id, TOTALS, str(stopped.checkpoint))


@pytest.mark.parametrize("key", ["execution.checkpointing.savepoint-dir", "state.savepoints.dir"])
def test_the_savepoint_directory_is_flinks_setting_when_it_is_set(tmp_path, key):
    shared = tmp_path / "shared"
    assert savepoint_root({key: f"file://{shared}"}, tmp_path / "home") == shared
    stopped = job(tmp_path, status=Status.CANCELED)
    checkpoint_of(stopped.checkpoint, fingerprint(TOTALS))
    path = savepoints.take(stopped, savepoint_root({key: str(shared)}, tmp_path / "home"))
    assert path.parent == shared and savepoints.read_print(path) == fingerprint(TOTALS)
    with pytest.raises(NotLocal, match=f"'{key}' = 's3://b/sp': over Spark Connect"):
        savepoint_root({key: "s3://b/sp"}, tmp_path / "home", remote=True)


def test_no_savepoint_is_taken_of_a_checkpoint_whose_last_batch_has_no_commit(tmp_path):
    # a batch cut in two may have written its output: a savepoint would emit it a second time
    stopped = job(tmp_path, status=Status.CANCELED)
    checkpoint_of(stopped.checkpoint, fingerprint(TOTALS))
    (stopped.checkpoint / "q0" / "offsets" / "1").write_text("v1\n")
    with pytest.raises(savepoints.SavepointError, match="stopped in the middle of micro-batch 1 \\(q0\\); no savepoint taken"):
        savepoints.take(stopped, tmp_path / "home" / "savepoints")
    assert not (tmp_path / "home" / "savepoints").exists() or not any((tmp_path / "home" / "savepoints").iterdir())


def test_the_savepoint_path_must_name_a_savepoint(tmp_path):
    new = fingerprint(TOTALS)
    with pytest.raises(savepoints.SavepointError, match="no such directory"):
        savepoints.plan_resume({savepoints.SAVEPOINT_PATH: str(tmp_path / "nope")}, new, tmp_path / "ck", None)
    (tmp_path / "data").mkdir()
    with pytest.raises(savepoints.SavepointError, match="is not a savepoint or checkpoint of sqlengine"):
        savepoints.plan_resume({savepoints.SAVEPOINT_PATH: str(tmp_path / "data")}, new, tmp_path / "ck", None)
    saved = checkpoint_of(tmp_path / "sp", new)
    resume = savepoints.plan_resume({savepoints.SAVEPOINT_PATH: f"file://{saved}"}, new, tmp_path / "ck", None)  # Flink writes URIs
    assert resume.savepoint == saved.resolve() and resume.notes == [f"Resuming from savepoint {saved.resolve()}"]


def test_a_checkpoint_of_an_earlier_run_is_replaced_and_said_so(tmp_path):
    new = fingerprint(TOTALS)
    saved = checkpoint_of(tmp_path / "sp", new)
    ours = checkpoint_of(tmp_path / "ck", new)
    resume = savepoints.plan_resume({savepoints.SAVEPOINT_PATH: str(saved)}, new, ours, "totals")
    assert resume.notes[1] == f"the checkpoint {ours} of an earlier run is replaced by the savepoint's"


def test_an_incompatible_change_is_refused_with_the_reason_where_it_is_and_how_to_start_fresh(tmp_path):
    saved = checkpoint_of(tmp_path / "sp", fingerprint(TOTALS))
    with pytest.raises(savepoints.Refused) as refused:
        savepoints.plan_resume({savepoints.SAVEPOINT_PATH: str(saved)}, fingerprint(AVG), tmp_path / "ck", None)
    assert str(refused.value) == f"Cannot resume from savepoint {saved.resolve()}: GroupAggregate #2 aggregate changed: SUM(amount) → AVG(amount)"
    assert refused.value.node == 2 and refused.value.hint == "to start without it, RESET 'execution.savepoint.path'"
    ours = checkpoint_of(tmp_path / "ck", fingerprint(TOTALS))
    with pytest.raises(savepoints.Refused) as named:
        savepoints.plan_resume({}, fingerprint(AVG), ours, "totals")
    assert named.value.hint == f"to start fresh, SET 'pipeline.name' to a new name, or remove {ours}"


def test_a_checkpoint_without_progress_or_fingerprint_is_not_compared(tmp_path):
    empty = checkpoint_of(tmp_path / "empty", fingerprint(TOTALS), progress=False)
    assert savepoints.plan_resume({}, fingerprint(AVG), empty, None).notes == []
    older = tmp_path / "older"
    (older / "q0" / "offsets").mkdir(parents=True)
    (older / "q0" / "offsets" / "0").write_text("v1\n")
    assert savepoints.plan_resume({}, fingerprint(AVG), older, None).notes == []


def test_applying_a_savepoint_replaces_the_checkpoint_with_new_query_ids_and_leaves_unclaimed_state_behind(tmp_path):
    saved = checkpoint_of(tmp_path / "sp", fingerprint(TOTALS))
    (saved / savepoints.SAVEPOINT_FILE).write_text("{}")
    ours = checkpoint_of(tmp_path / "ck", fingerprint(AVG))
    (ours / "q1").mkdir()  # a query of an earlier run the new job does not have: it starts anew
    savepoints.apply(savepoints.Resume(saved, fresh=(1,)), ours, 2)
    assert savepoints.read_print(ours) == fingerprint(TOTALS)
    assert not (ours / savepoints.SAVEPOINT_FILE).exists() and not (ours / "q1").exists()
    assert (ours / "q0" / "metadata").read_text() != (saved / "q0" / "metadata").read_text()  # may run beside it
    savepoints.apply(savepoints.Resume(unclaimed=(0,)), ours, 1)
    assert not (ours / "q0" / "state").exists() and (ours / "q0" / "offsets" / "0").exists()


def test_a_file_sink_that_went_past_the_savepoint_is_said_to_skip_those_batches(tmp_path):
    query, sink = tmp_path / "sp" / "q0", tmp_path / "out"
    (query / "commits").mkdir(parents=True)
    (query / "commits" / "0").write_text("v1\n")
    assert savepoints.file_sink_ahead(query, sink) is None  # nothing written there yet
    (sink / "_spark_metadata").mkdir(parents=True)
    (sink / "_spark_metadata" / "0").write_text("v1\n")
    assert savepoints.file_sink_ahead(query, sink) is None  # the savepoint is where the sink is
    for batch in ("1", "2", "3.compact"):
        (sink / "_spark_metadata" / batch).write_text("v1\n")
    assert savepoints.file_sink_ahead(query, sink) == (
        f"the file sink {sink} has committed batches up to 3 and the savepoint resumes at batch 1: Spark's file sink skips "
        "the batches it has committed, so the rows of batches 1 to 3 will not be written there (a new sink directory takes them)"
    )
