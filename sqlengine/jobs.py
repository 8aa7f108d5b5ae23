"""Jobs: the streaming queries of one INSERT, statement set or SELECT, run in the background.

A job over bounded sources runs in two phases with Spark's availableNow trigger: first all the
input, then, once it is consumed, the end-of-input markers (see ``translate.scan``) so that every
window and time bound closes and the final rows come out; the job then ends by itself. Checkpoints
live under the home, keyed by the statement, so re-running the same statement resumes it and the
filesystem sink commits each batch exactly once.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from sqlengine.progress import Snapshot, from_progress

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from sqlengine.results import ResultTable
    from sqlengine.translate import Translated

log = logging.getLogger("sqlengine.jobs")

# Spark must not move filters below a watermark while an end-of-input marker is on its way: they
# would drop the marker (its columns are NULL) before the watermark sees it. Only the run that
# reads the marker goes without pushdown; the run over the input keeps it (filters below joins,
# into file sources). The filters' place changes no operator's state schema.
NO_PUSHDOWN = ",".join(
    "org.apache.spark.sql.catalyst.optimizer." + r
    for r in ("PushDownPredicates", "PushPredicateThroughNonJoin", "PushPredicateThroughJoin", "InferFiltersFromConstraints")
)
_start_lock = threading.Lock()


class Status(str, Enum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    CANCELED = "CANCELED"


@dataclass
class Pipeline:
    """One streaming query of a job: what it computes and how it is written."""

    name: str
    translated: Translated
    # start(trigger_kwargs, checkpoint) -> StreamingQuery
    start: Callable


@dataclass
class Job:
    id: str
    name: str
    sql: str
    kind: str  # insert | statement-set | select
    checkpoint: Path
    pipelines: list[Pipeline]
    bounded: bool  # a streaming job over bounded sources (two phases, availableNow)
    result: ResultTable | None = None
    batch: bool = False  # runs on Spark's batch engine ('execution.runtime-mode' = 'batch')
    status: Status = Status.STARTING
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    error: str | None = None
    error_detail: BaseException | None = field(default=None, repr=False)
    history: deque = field(default_factory=lambda: deque(maxlen=1000))
    log_path: Path | None = None
    already_complete: bool = False  # a bounded job whose checkpoint says it ran to the end
    _queries: list = field(default_factory=list, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _seen_batches: dict = field(default_factory=dict, repr=False)

    @property
    def ends_by_itself(self) -> bool:
        return self.bounded or self.batch

    @property
    def done(self) -> bool:
        return self.status in (Status.FINISHED, Status.FAILED, Status.CANCELED)

    @property
    def latest(self) -> dict[str, Snapshot]:
        out: dict[str, Snapshot] = {}
        for snap in self.history:
            out[snap.query] = snap
        return out

    def rows_per_second(self) -> float:
        return sum(s.processed_rps for s in self.latest.values())

    def state_bytes(self) -> int:
        return sum(s.state_bytes for s in self.latest.values())

    def state_rows(self) -> int:
        return sum(s.state_rows for s in self.latest.values())

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return self.done

    def stop(self) -> None:
        """Stop cleanly: Spark finishes the batch in flight; the checkpoint stays for a resume."""
        self._stop.set()
        for q in list(self._queries):
            try:
                q.stop()
            except Exception:  # the query may already be gone
                log.debug("stopping %s", self.id, exc_info=True)


class JobManager:
    def __init__(self, spark: SparkSession, home: Path):
        self.spark = spark
        self.home = Path(home)
        self.jobs: dict[str, Job] = {}

    def checkpoint_dir(self, key: str) -> Path:
        return self.home / "checkpoints" / key

    def submit(self, job: Job) -> Job:
        self.jobs[job.id] = job
        jobs_dir = self.home / "jobs" / job.id
        jobs_dir.mkdir(parents=True, exist_ok=True)
        job.log_path = jobs_dir / "progress.jsonl"
        (jobs_dir / "statement.sql").write_text(job.sql)
        job._thread = threading.Thread(target=self._run, args=(job,), name=f"job-{job.id}", daemon=True)
        job._thread.start()
        return job

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex[:12]

    # -- running -------------------------------------------------------------------------------

    def _start_all(self, job: Job, trigger: dict) -> None:
        job._queries = []
        for i, p in enumerate(job.pipelines):
            ck = job.checkpoint / f"q{i}"
            with _start_lock:
                previous = self.spark.conf.get("spark.sql.optimizer.excludedRules", None)
                no_pushdown = self._markers_written(job)
                if no_pushdown:
                    self.spark.conf.set("spark.sql.optimizer.excludedRules", NO_PUSHDOWN)
                try:
                    job._queries.append(p.start(trigger, ck))
                    for j, side in enumerate(p.translated.side_queries):
                        job._queries.append(side.start(self.spark, job.checkpoint / f"q{i}-side{j}", trigger))
                finally:
                    if no_pushdown:
                        if previous is None:
                            self.spark.conf.unset("spark.sql.optimizer.excludedRules")
                        else:
                            self.spark.conf.set("spark.sql.optimizer.excludedRules", previous)

    def _monitor(self, job: Job) -> None:
        """Record progress until every query of the job has terminated (or the job is stopped)."""
        while True:
            for q in job._queries:
                self._record(job, q)
            active = [q for q in job._queries if q.isActive]
            if not active:
                for q in job._queries:
                    self._record(job, q)  # the batches since the last look
                    exc = q.exception()
                    if exc is not None:
                        raise exc
                return
            if job._stop.is_set():
                return
            # progress is read twice a second; the end of a query is noticed at once (a bounded
            # job's next phase, or its caller, waits on it); stop() ends the wait too
            try:
                active[0].awaitTermination(0.5)
            except Exception:  # it failed: q.exception() above reports it
                pass

    def _record(self, job: Job, q) -> None:  # type: ignore[no-untyped-def]
        try:
            recent = q.recentProgress
        except Exception:
            return
        name = q.name or q.id
        for p in recent:
            snap = from_progress(str(name), p)
            key = (snap.query, snap.batch_id, snap.timestamp)
            if key in job._seen_batches:
                continue
            job._seen_batches[key] = True
            job.history.append(snap)
            if job.log_path is not None:
                with open(job.log_path, "a") as fh:
                    fh.write(snap.to_json() + "\n")

    def _run(self, job: Job) -> None:
        finished_marker = job.checkpoint / "FINISHED"
        try:
            job.checkpoint.mkdir(parents=True, exist_ok=True)
            job.status = Status.RUNNING
            if job.bounded and finished_marker.exists():
                log.info("job %s was already complete; nothing to do", job.id)
                job.already_complete = True
                job.status = Status.FINISHED
                return
            trigger = {"availableNow": True} if job.bounded else {"processingTime": _interval(job)}
            one_phase = job.bounded and all(src.one_batch for p in job.pipelines for src in p.translated.sources)
            if one_phase:
                # every input arrives in the first batch: the markers can ride along with it
                self._write_markers(job)
            self._start_all(job, trigger)
            self._monitor(job)
            if job.bounded and not one_phase and not job._stop.is_set():
                # phase 2: the input is consumed; the end-of-input markers close every window
                wrote = self._write_markers(job)
                if wrote:
                    self._start_all(job, trigger)
                    self._monitor(job)
            if job.bounded and not job._stop.is_set():
                finished_marker.write_text(time.strftime("%Y-%m-%dT%H:%M:%S"))
            job.status = Status.CANCELED if job._stop.is_set() else Status.FINISHED
        except BaseException as err:  # reported through job.error; the trace goes to the log
            log.exception("job %s failed", job.id)
            job.error_detail = err
            job.status = Status.CANCELED if job._stop.is_set() else Status.FAILED
            for q in job._queries:
                try:
                    q.stop()
                except Exception:
                    pass
        finally:
            job.ended_at = time.time()

    @staticmethod
    def _markers_written(job: Job) -> bool:
        return any(
            (src.sentinel_dir / "end-of-input.json").exists()
            for p in job.pipelines
            for src in p.translated.sources
            if src.sentinel_dir is not None
        )

    def _write_markers(self, job: Job) -> bool:
        from sqlengine.translate.scan import eos_record  # imports pyspark: not at shell start

        wrote = False
        for p in job.pipelines:
            for src in p.translated.sources:
                if src.sentinel_dir is None:
                    continue
                marker = src.sentinel_dir / "end-of-input.json"
                if marker.exists():
                    continue
                tmp = src.sentinel_dir / ".end-of-input.json.tmp"
                tmp.write_text(json.dumps(eos_record(src.time_column or "ts")) + "\n")
                tmp.rename(marker)  # atomic: the file source never sees a half-written file
                wrote = True
        return wrote


def _interval(job: Job) -> str:
    """The trigger of an unbounded job. When every unbounded source is a file source with a
    'source.monitor-interval', batches start that often (the shortest), as Flink's source looks
    for new files that often; a generator has input at any time, so batches run back to back."""
    polls = [src.poll_seconds for p in job.pipelines for src in p.translated.sources if not src.bounded]
    if polls and all(s is not None for s in polls):
        return f"{round(min(polls) * 1000)} milliseconds"  # type: ignore[type-var]
    return "0 seconds"
