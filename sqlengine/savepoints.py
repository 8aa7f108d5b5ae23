"""Savepoints and compatible restarts, as Flink users know them.

A job's checkpoint holds, beside Spark's own files, the fingerprint of its stateful operators
(``sqlengine-plan.json``, ``planner.resume``), written when the job starts. ``STOP JOB 'id' WITH
SAVEPOINT`` stops the job cleanly and copies its whole checkpoint to
``<home>/savepoints/savepoint-<job id>-<random>``. ``SET 'execution.savepoint.path'`` makes the
next INSERTs start from one: the savepoint is copied over the job's checkpoint before it starts.
Before a checkpoint or a savepoint is resumed, its fingerprint is compared with the new plan's,
and an incompatible change is refused with its reason (``Refused``) instead of failing in Spark
(or, worse, resuming with state that meant something else).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from planner.analysis import one_batch
from planner.resume import JobPrint, Verdict, compare
from sqlengine import storage
from sqlengine.connectors.file_sink_owner import LOG, batch_ids
from sqlengine.jobs import Job, JobKind, Status, interrupted_batches
from sqlengine.storage import Location

PLAN_FILE = "sqlengine-plan.json"
SAVEPOINT_FILE = "savepoint.json"  # in a savepoint: which job it was taken of, and when
SAVEPOINT_PATH = one_batch.SAVEPOINT_PATH  # Flink's setting; the planner reads it too
IGNORE_UNCLAIMED = "execution.savepoint.ignore-unclaimed-state"


class SavepointError(Exception):
    """A savepoint that cannot be taken or used: one line for the user."""


@dataclass(eq=False)  # not frozen: Python sets __traceback__ on an exception as it passes
class Refused(Exception):
    """The new plan cannot resume the state it would start from: the reason, the new plan's node
    it is about (for the error's position), and how to start fresh instead."""

    message: str
    node: int | None
    hint: str

    def __str__(self) -> str:
        return self.message


@dataclass
class Resume:
    """What starting a job does with the state it finds: the savepoint it copies in first (None:
    the checkpoint as it is), the queries whose old state is left behind, and what to tell."""

    savepoint: Location | None = None
    unclaimed: tuple[int, ...] = ()
    fresh: tuple[int, ...] = ()  # queries new to the job: whatever is in their directory goes
    notes: list[str] = field(default_factory=list)


# -- reading and writing -------------------------------------------------------------------------


def read_print(directory: Location) -> JobPrint | None:
    """The fingerprint stored in a checkpoint or savepoint (None: there is none)."""
    path = directory / PLAN_FILE
    if not path.is_file():
        return None
    try:
        return JobPrint.from_json(path.read_text())
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise SavepointError(f"{path} cannot be read as sqlengine's plan fingerprint: {err}") from None


def write_print(checkpoint: Location, fingerprint: JobPrint) -> None:
    try:
        checkpoint.mkdir(parents=True, exist_ok=True)
        tmp = checkpoint / f".{PLAN_FILE}.tmp"
        tmp.write_text(fingerprint.to_json())
        storage.replace(tmp, checkpoint / PLAN_FILE)  # never half a file, whatever stops us
    except OSError as err:
        raise SavepointError(f"cannot write {checkpoint / PLAN_FILE}: {err.strerror or err}") from None


def has_progress(checkpoint: Location) -> bool:
    """Whether a query of the job has written an offset: Spark then resumes from it (a
    checkpoint without one starts from scratch, whatever plan it was made for)."""
    return any(any(q.glob("offsets/[0-9]*")) for q in checkpoint.glob("q*") if q.is_dir())


# -- taking one ----------------------------------------------------------------------------------


def check_can_take(job: Job) -> None:
    """Refuse, before the job is stopped, a savepoint there can be none of."""
    if job.kind == JobKind.SELECT:
        raise SavepointError(f"Job {job.id} is a SELECT: it keeps no checkpoint to take a savepoint of (STOP JOB '{job.id}' stops it)")
    if job.batch:
        raise SavepointError(f"Job {job.id} runs in batch mode: it keeps no checkpoint to take a savepoint of")
    if job.done:
        raise SavepointError(
            f"Job {job.id} has already ended ({job.status.value}); no savepoint taken. Its checkpoint {job.checkpoint} "
            f"is kept: SET '{SAVEPOINT_PATH}' = '{job.checkpoint}' starts from it as from a savepoint"
        )


def take(job: Job, root: Location) -> Location:
    """Copy a stopped job's checkpoint, all of it (its fingerprint too), into a new savepoint
    under ``root`` (``checkpoint_root.savepoint_root``)."""
    if job.status == Status.FAILED:
        raise SavepointError(f"Job {job.id} failed as it stopped; no savepoint taken")
    if read_print(job.checkpoint) is None:
        raise SavepointError(f"the checkpoint {job.checkpoint} holds no plan fingerprint ({PLAN_FILE}); no savepoint taken")
    for query, batch in interrupted_batches(job.checkpoint).items():
        # the stop could not run it to its end (Job.stop): a savepoint would emit its output again
        raise SavepointError(
            f"Job {job.id} stopped in the middle of micro-batch {batch} ({query}); no savepoint taken. Its checkpoint "
            "is kept: running the same statement again resumes it"
        )
    target = root / f"savepoint-{job.id}-{uuid.uuid4().hex[:6]}"
    about = {"job": job.id, "name": job.name, "statement": job.sql, "checkpoint": str(job.checkpoint), "taken": time.strftime("%Y-%m-%dT%H:%M:%S")}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        storage.copytree(job.checkpoint, target)
        (target / SAVEPOINT_FILE).write_text(json.dumps(about, indent=1))
    except OSError as err:
        storage.rmtree(target)  # half a savepoint is none
        raise SavepointError(f"cannot copy the checkpoint {job.checkpoint} into {target}: {err.strerror or err}") from None
    return target


# -- resuming ------------------------------------------------------------------------------------


def plan_resume(settings: dict[str, str], fingerprint: JobPrint, checkpoint: Location, name: str | None) -> Resume:
    """What to start the job from, with the new plan's ``fingerprint``: the savepoint of
    'execution.savepoint.path', or the job's own checkpoint. Raises ``Refused`` when the new
    plan's stateful operators cannot take over the state, ``SavepointError`` for a path that is
    no savepoint."""
    ignore = settings.get(IGNORE_UNCLAIMED, "false").lower() == "true"
    path_text = settings.get(SAVEPOINT_PATH)
    if path_text:
        savepoint = storage.location(path_text)
        if not savepoint.is_dir():
            raise SavepointError(f"'{SAVEPOINT_PATH}' = '{path_text}': no such directory")
        old = read_print(savepoint)
        if old is None:
            raise SavepointError(f"'{SAVEPOINT_PATH}' = '{path_text}' is not a savepoint or checkpoint of sqlengine (it has no {PLAN_FILE})")
        verdict = compare(old, fingerprint, ignore_unclaimed=ignore)
        _refuse(verdict, f"Cannot resume from savepoint {savepoint}", f"to start without it, RESET '{SAVEPOINT_PATH}'")
        same = storage.same(savepoint, checkpoint)
        resume = _resume(verdict, old, fingerprint, None if same else savepoint)
        if not same:
            resume.notes.insert(0, f"Resuming from savepoint {savepoint}")
            if checkpoint.exists() and has_progress(checkpoint):
                resume.notes.insert(1, f"the checkpoint {checkpoint} of an earlier run is replaced by the savepoint's")
        return resume
    old = read_print(checkpoint) if checkpoint.exists() and has_progress(checkpoint) else None
    if old is None:  # a new job, or one started before fingerprints were kept: nothing to compare
        return Resume()
    fresh = "SET 'pipeline.name' to a new name" if name else "SET 'pipeline.name'"
    verdict = compare(old, fingerprint, ignore_unclaimed=ignore)
    _refuse(verdict, f"Cannot resume the checkpoint {checkpoint}", f"to start fresh, {fresh}, or remove {checkpoint}")
    return _resume(verdict, old, fingerprint, None)


def _refuse(verdict: Verdict, what: str, hint: str) -> None:
    if not verdict.compatible:
        raise Refused(f"{what}: {verdict}", verdict.changes[0].node, hint)


def _resume(verdict: Verdict, old: JobPrint, new: JobPrint, savepoint: Location | None) -> Resume:
    fresh = tuple(range(len(old.pipelines), len(new.pipelines)))
    return Resume(savepoint, verdict.unclaimed, fresh, list(verdict.notes))


def apply(resume: Resume, checkpoint: Location, pipelines: int) -> None:
    """Lay the job's checkpoint out as ``resume`` says, before the job starts: the savepoint
    copied in (with new query ids, so that it may run beside the job it was taken of), the state
    left unclaimed removed."""
    try:
        _apply(resume, checkpoint, pipelines)
    except OSError as err:
        raise SavepointError(f"cannot lay out the checkpoint {checkpoint}: {err.strerror or err}") from None


def _apply(resume: Resume, checkpoint: Location, pipelines: int) -> None:
    if resume.savepoint is not None:
        if checkpoint.exists():
            storage.rmtree(checkpoint, ignore_errors=False)
        storage.copytree(resume.savepoint, checkpoint, leave_out=SAVEPOINT_FILE)
        for metadata in checkpoint.glob("q*/metadata"):
            metadata.write_text(json.dumps({"id": str(uuid.uuid4())}) + "\n")
    for i in resume.unclaimed:
        # a query still in the job keeps its offsets and loses its state; one no longer in it goes
        if i < pipelines:
            storage.rmtree(checkpoint / f"q{i}" / "state")
        else:
            _remove_query(checkpoint, i)
    for i in resume.fresh:  # a new INSERT of a statement set starts from nothing
        _remove_query(checkpoint, i)


def file_sink_ahead(query: Location, sink_dir: Path) -> str | None:
    """What to tell when a file sink has committed batches that a query restored from a
    savepoint will run again: Spark's file sink skips a batch whose id its log (``_spark_metadata``)
    already has, so those rows would not be written there."""
    written = batch_ids(sink_dir / LOG)
    if not written:
        return None
    start = max(batch_ids(query / "commits"), default=-1) + 1
    if max(written) < start:
        return None
    batches = f"batch {start}" if start == max(written) else f"batches {start} to {max(written)}"
    return (
        f"the file sink {sink_dir} has committed batches up to {max(written)} and the savepoint resumes at batch {start}: "
        f"Spark's file sink skips the batches it has committed, so the rows of {batches} will not be written there "
        "(a new sink directory takes them)"
    )


def _remove_query(checkpoint: Location, i: int) -> None:
    for path in [checkpoint / f"q{i}", *checkpoint.glob(f"q{i}-side*")]:
        storage.rmtree(path)
