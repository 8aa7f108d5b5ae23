"""STOP JOB ... WITH SAVEPOINT as the shell and `run` answer it (repl.job_statements), over jobs
that need no Spark: what is refused before a job is stopped, what a savepoint answers, and that a
plain STOP JOB is as it was."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from planner.statements.script import parse_script
from planner.statements.session import Kind, Outcome
from repl.client import ClientError
from repl.job_statements import answer
from sqlengine.checkpoint_root import savepoint_root
from sqlengine.jobs import Job, JobKind, Status
from sqlengine.storage import Location


class Engine:
    """What the job statements ask of the engine: its jobs, and a savepoint of a stopped one."""

    def __init__(self, *jobs: Job, settings: dict[str, str] | None = None, remote: bool = False) -> None:
        self.jobs = list(jobs)
        self.savepoints: list[str] = []
        self.settings = settings or {}
        self.remote = remote  # a Spark Connect client: no JVM to reach a Hadoop URI with

    def job_list(self) -> list[Job]:
        return self.jobs

    def savepoint_root(self) -> Location:
        return savepoint_root(self.settings, Path("/home/me/.sqlengine"), remote=self.remote)

    def take_savepoint(self, job: Job) -> Path:
        self.savepoints.append(job.id)
        return Path(f"/home/me/.sqlengine/savepoints/savepoint-{job.id}-abc123")


def job(kind: JobKind = JobKind.INSERT, status: Status = Status.RUNNING) -> Job:
    return Job(
        id="0123456789ab", name="totals", sql="INSERT ...", kind=kind, checkpoint=Path("/ck"), pipelines=[], bounded=False, status=status
    )


def stop_statement(text: str) -> Outcome:
    (stmt,) = parse_script(text).statements
    return Outcome(Kind.JOBS, stmt, stmt.tree)


def stopper(stops: bool = True):
    stopped: list[tuple[str, bool]] = []

    def stop(j: Job, whole_batches: bool) -> bool:
        stopped.append((j.id, whole_batches))
        if stops:
            j.status = Status.CANCELED
        return True

    return stop, stopped


def test_a_savepoint_of_a_running_insert_stops_it_and_answers_with_the_path():
    running = job()
    engine = Engine(running)
    stop, stopped = stopper()
    lines = answer(engine, stop_statement("STOP JOB '0123' WITH SAVEPOINT;"), stop)
    # a savepoint's stop runs an interrupted micro-batch to its end (Job.stop)
    assert stopped == [(running.id, True)] and engine.savepoints == [running.id]
    assert lines[0].info and lines[0].text == "Job 0123456789ab stopped with a savepoint."
    assert lines[1].text.splitlines()[1].startswith("| savepoint path ")
    assert "| /home/me/.sqlengine/savepoints/savepoint-0123456789ab-abc123 |" in lines[1].text


def test_a_select_is_refused_a_savepoint_and_keeps_running():
    select = job(JobKind.SELECT)
    stop, stopped = stopper()
    with pytest.raises(ClientError, match="is a SELECT: it keeps no checkpoint"):
        answer(Engine(select), stop_statement(f"STOP JOB '{select.id}' WITH SAVEPOINT;"), stop)
    assert stopped == [] and select.status == Status.RUNNING


def test_no_savepoint_is_taken_of_a_job_still_stopping():
    slow = job()
    engine = Engine(slow)
    stop, _ = stopper(stops=False)
    with pytest.raises(ClientError, match="is still stopping"):
        answer(engine, stop_statement(f"STOP JOB '{slow.id}' WITH SAVEPOINT;"), stop)
    assert engine.savepoints == []


def test_a_plain_stop_is_as_it_was():
    running = job()
    engine = Engine(running)
    stop, stopped = stopper()
    (line,) = answer(engine, stop_statement(f"STOP JOB '{running.id}';"), stop)
    assert line.text == "Job 0123456789ab stopped; its checkpoint is kept: running the same statement again resumes it."
    assert stopped == [(running.id, False)] and engine.savepoints == []


def test_a_savepoint_directory_sqlengine_cannot_write_is_said_before_the_job_is_stopped():
    running = job()
    engine = Engine(running, settings={"execution.checkpointing.savepoint-dir": "s3://bucket/sp"}, remote=True)
    stop, stopped = stopper()
    with pytest.raises(ClientError, match=re.escape("'execution.checkpointing.savepoint-dir' = 's3://bucket/sp': over Spark Connect")):
        answer(engine, stop_statement(f"STOP JOB '{running.id}' WITH SAVEPOINT;"), stop)
    assert stopped == [] and running.status == Status.RUNNING and engine.savepoints == []
