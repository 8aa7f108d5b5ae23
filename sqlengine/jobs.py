"""Jobs: the streaming queries of one INSERT, statement set or SELECT, run in the background.

A job over bounded sources runs with Spark's availableNow trigger and ends by itself: its
end-of-input strategy (``sqlengine.end_of_input``) closes every window and time bound so that the
final rows come out. Each job plans and runs in its own Spark session (``Job.spark``): what one
job sets for its runs reaches no other query. Checkpoints live under the home, keyed by the
statement, so re-running the same statement resumes it and the filesystem sink commits each
batch exactly once.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from sqlengine import errors
from sqlengine.connectors.file_sink_owner import batch_ids
from sqlengine.end_of_input import EndOfInput
from sqlengine.progress import ChangelogKeys, Snapshot, from_progress, new_progress
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.query import StreamingQuery
    from pyspark.sql.streaming.readwriter import DataStreamWriter

    from sqlengine.results import ResultTable
    from sqlengine.translate import Translated

log = logging.getLogger("sqlengine.jobs")
NO_DATA_BATCHES = "spark.sql.streaming.noDataMicroBatches.enabled"


class JobKind(StrEnum):
    SELECT = "select"
    INSERT = "insert"
    STATEMENT_SET = "statement-set"


class Status(StrEnum):
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    FAILED = "FAILED"
    CANCELED = "CANCELED"


@dataclass(frozen=True)
class Trigger:
    """When a job's micro-batches run: all available input then stop (a bounded job), or every
    ``interval`` (an unbounded one; "0 seconds": back to back)."""

    available_now: bool = False
    interval: str = "0 seconds"

    def apply(self, writer: DataStreamWriter) -> DataStreamWriter:
        if self.available_now:
            return writer.trigger(availableNow=True)
        return writer.trigger(processingTime=self.interval)


# start(trigger, checkpoint) -> the started query (None: a batch run, done already)
Start = Callable[[Trigger, Location], "StreamingQuery | None"]


@dataclass
class Pipeline:
    """One streaming query of a job: what it computes and how it is written."""

    name: str
    translated: Translated
    start: Start
    # Spark Connect: reads the result rows the server wrote for the finished batches (spark_connect.ResultBatches)
    drain: Callable[[], None] | None = None


@dataclass
class Job:
    id: str
    name: str
    sql: str
    kind: JobKind
    checkpoint: Location
    pipelines: list[Pipeline]
    bounded: bool  # a streaming job over bounded sources (availableNow; ends by itself)
    result: ResultTable | None = None
    spark: SparkSession | None = field(default=None, repr=False)  # the job's own session
    end_of_input: EndOfInput = field(default_factory=lambda: EndOfInput((), ()))
    batch: bool = False  # runs on Spark's batch engine ('execution.runtime-mode' = 'batch')
    # a bounded streaming job run as one batch job (planner.analysis.one_batch): it leaves FINISHED
    # in its checkpoint as a streaming run would, so running it again does nothing
    one_batch: bool = False
    # per stateful operator: (operator, how it runs: "native" or "changelog operator (why)")
    operators: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()  # told when it starts: a savepoint restored, the checkpoint's state backend kept
    status: Status = Status.STARTING
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    error: str | None = None
    error_detail: BaseException | None = field(default=None, repr=False)
    history: deque[Snapshot] = field(default_factory=lambda: deque(maxlen=1000))
    log_path: Path | None = None
    already_complete: bool = False  # a bounded job whose checkpoint says it ran to the end
    _queries: list[StreamingQuery] = field(default_factory=list, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _whole_batches: bool = field(default=False, repr=False)  # a savepoint's stop: no batch left half run
    _seen_batches: dict[str, set[tuple[int, str]]] = field(default_factory=dict, repr=False)  # per query: (batch, timestamp)
    _changelog_keys: ChangelogKeys = field(default_factory=ChangelogKeys, repr=False)

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

    def run_conf(self) -> dict[str, str | None]:
        """The job session's settings for its next run (None: unset): the end-of-input strategy's,
        and, for a bounded job whose output waits on no watermark and no timer, no no-data
        micro-batches. Spark runs one after the last batch of input because the watermark moved,
        and in it only evicts state, emitting nothing (q4's join: 14 s of a 55-s run), which a
        job that then ends has no use for. Between batches of input none runs anyway: the next
        batch evicts."""
        conf = self.end_of_input.session_conf()
        if self.bounded and not any(p.translated.waits_on_watermark or p.translated.processing_timers for p in self.pipelines):
            conf[NO_DATA_BATCHES] = "false"
        return conf

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return self.done

    def stop(self, *, whole_batches: bool = False) -> None:
        """Stop; the checkpoint stays for a resume. Spark interrupts the batch in flight, which a
        resume runs again (a file sink commits it once). ``whole_batches`` (a savepoint's stop):
        the job then runs the interrupted batch to its end first (``JobManager._finish_batches``),
        so that no output of the job is ahead of its checkpoint."""
        self._whole_batches = whole_batches
        self._stop.set()
        self.stop_queries()

    def stop_queries(self) -> None:
        """Stop each query the job has started (Spark waits for each); one already gone is fine."""
        for q in list(self._queries):
            try:
                q.stop()
            except Exception:  # the query may already be gone
                log.debug("stopping %s", self.id, exc_info=True)


class JobManager:
    def __init__(self, home: Path):
        self.home = Path(home)
        self.jobs: dict[str, Job] = {}

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

    def _start_all(self, job: Job, trigger: Trigger, *, stoppable: bool = True) -> None:
        # the job's own session: a query clones it when it starts, so this run's settings reach
        # this run only, and no other job
        spark = job.spark
        assert spark is not None, "a job runs in its own session"
        for key, value in job.run_conf().items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
        job._queries = []
        for i, p in enumerate(job.pipelines):
            if stoppable and job._stop.is_set():  # stopped while starting: the rest never start
                break
            query = p.start(trigger, job.checkpoint / f"q{i}")
            if query is not None:
                job._queries.append(query)
            for j, side in enumerate(p.translated.side_queries):  # they run as their source: bounded or not
                job._queries.append(side(spark, job.checkpoint / f"q{i}-side{j}"))

    def _finish_batches(self, job: Job) -> None:
        """After a savepoint's stop: Spark has no stop between micro-batches, and a batch it
        interrupted may have written its output (a window closed, a file committed) without its
        commit in the checkpoint. A savepoint of that checkpoint would run the batch again and
        emit the output twice. So the job's queries run once more, with the availableNow trigger:
        the interrupted batch first, then whatever input has come, and they stop at a batch's end."""
        job.stop_queries()  # Job.stop may still be stopping them: this waits for each
        if not interrupted_batches(job.checkpoint):
            return
        log.info("job %s: running the batch its stop interrupted to its end", job.id)
        # the stop is set: this run is not stoppable, or it would start nothing
        self._start_all(job, Trigger(available_now=True), stoppable=False)
        self._monitor(job, stoppable=False)

    def _monitor(self, job: Job, *, stoppable: bool = True) -> None:
        """Record progress until every query of the job has terminated (or the job is stopped)."""
        while True:
            for q in job._queries:
                self._record(job, q)
            self._drain(job)
            active = [q for q in job._queries if q.isActive]
            if not active:
                self._drain(job)
                for q in job._queries:
                    self._record(job, q)  # the batches since the last look
                    exc = q.exception()
                    if exc is not None and job._stop.is_set() and errors.interrupted(exc):
                        log.info("job %s: a query's stop interrupted its batch: %s", job.id, errors.first_line(str(exc)))
                    elif exc is not None:
                        raise exc
                return
            if stoppable and job._stop.is_set():
                # Job.stop stops the queries it sees; one started while it ran (a stop during the
                # job's start) is stopped here, so no query outlives its job's CANCELED
                job.stop_queries()
                return
            # progress is read twice a second; the end of a query is noticed at once (a bounded
            # job's next phase, or its caller, waits on it); stop() ends the wait too
            try:
                active[0].awaitTermination(0.5)  # type: ignore[arg-type]  # typed int; it takes float seconds (x 1000 ms)
            except Exception:  # it failed: q.exception() above reports it
                pass

    @staticmethod
    def _drain(job: Job) -> None:
        for p in job.pipelines:
            if p.drain is not None:
                p.drain()

    def _record(self, job: Job, q: StreamingQuery) -> None:
        try:
            name = str(q.name or q.id)
            seen = job._seen_batches.setdefault(name, set())
            recent = new_progress(q, seen)
        except Exception:
            return
        for p in recent:
            snap = from_progress(name, p)
            seen.add((snap.batch_id, snap.timestamp))
            snap = job._changelog_keys.apply(snap)
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
            trigger = Trigger(available_now=True) if job.bounded else Trigger(interval=_interval(job))
            eoi = job.end_of_input
            # every source counts its batches: the markers come with the last of them, in this run
            one_phase = job.bounded and eoi.write_ahead()
            self._start_all(job, trigger)
            self._monitor(job)
            # phase 2: the input is consumed; the end-of-input markers close every window
            if job.bounded and not one_phase and not job._stop.is_set() and eoi.write():
                self._start_all(job, trigger)
                self._monitor(job)
            if job._stop.is_set() and job._whole_batches:
                self._finish_batches(job)
            if (job.bounded or job.one_batch) and not job._stop.is_set():
                finished_marker.write_text(time.strftime("%Y-%m-%dT%H:%M:%S"))
            job.status = Status.CANCELED if job._stop.is_set() else Status.FINISHED
        except BaseException as err:  # reported through job.error; the trace goes to the log
            log.exception("job %s failed", job.id)
            job.error_detail = err
            job.status = Status.CANCELED if job._stop.is_set() else Status.FAILED
            job.stop_queries()
        finally:
            job.ended_at = time.time()


def interrupted_batches(checkpoint: Location) -> dict[str, int]:
    """Per query of a job's checkpoint (``q0``, ``q0-side0``, ...): the micro-batch it has planned
    (its offsets) and not committed, if any."""
    out: dict[str, int] = {}
    for query in sorted(checkpoint.glob("q*"), key=str):
        last = max(batch_ids(query / "offsets"), default=-1)
        if last > max(batch_ids(query / "commits"), default=-1):
            out[query.name] = last
    return out


PROCESSING_TIMER_SECONDS = 0.2


def _interval(job: Job) -> str:
    """The trigger of an unbounded job. When every unbounded source is a file source with a
    'source.monitor-interval', batches start that often (the shortest), as Flink's source looks
    for new files that often; a generator has input at any time, so batches run back to back. A
    job with processing-time timers (a processing-time window) starts one every 200 ms at most,
    input or not: a window closes within that of its end (a file source then lists its directory
    that often too)."""
    polls = [src.poll_seconds for p in job.pipelines for src in p.translated.sources if not src.bounded]
    known = [s for s in polls if s is not None]
    timers = any(p.translated.processing_timers for p in job.pipelines)
    if timers:
        # Spark then runs a batch every interval, input or not, to fire the timers: back to back
        # they would keep a core busy on an idle source; a window closes within this of its end
        known.append(PROCESSING_TIMER_SECONDS)
    if timers or (polls and len(known) == len(polls)):
        return f"{round(min(known) * 1000)} milliseconds"
    return "0 seconds"
