"""The engine: the catalog and planner session, a Spark session (started lazily, optionally in
the background), and the jobs it runs. The shell and ``sqlengine run`` drive it statement by
statement through ``execute``."""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catalog import Catalog
from catalog.home import resolve_home
from planner.analysis import one_batch
from planner.analysis.analyze import Analysis, is_streaming
from planner.analysis.physical import JVM_SETTING, changelog_buckets
from planner.dialect import Flink
from planner.errors import SqlError
from planner.logical.operators import Node, Sink
from planner.logical.visit import distinct_nodes
from planner.problems import PlanningError, located
from planner.source import Span
from planner.statements.script import Statement
from planner.statements.session import Kind, Outcome, PlannerSession
from sqlengine import checkpoint_root, errors, jvm, savepoints, state_backend, storage
from sqlengine.connectors.errors import ConnectorError
from sqlengine.end_of_input import EndOfInput
from sqlengine.jobs import Job, JobKind, JobManager, Pipeline, Status
from sqlengine.pipelines import result_pipeline, sink_pipeline
from sqlengine.scan_splits import split_conf
from sqlengine.session import session_overrides
from sqlengine.sink_claims import claim_file_sinks, file_sinks_ahead
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# Flink's semantics where Spark's defaults differ: ANSI mode raises on overflow and bad casts;
# Flink's ENCODE / DECODE are Java's String.getBytes / new String, which take any charset Java
# knows and replace what a charset cannot code ('?', U+FFFD), where Spark 4 takes seven charsets
# and raises (the two legacy settings give Java's).
# And Flink's way of writing a PARTITIONED BY table: a file open per partition a task writes,
# where Spark's file writer first sorts the task's rows by their partition values and writes one
# file at a time. With writers open at once Spark skips that sort, and sorts only the rows of
# partitions beyond the 16th (q10 over 2,000,000 events: 10.0 s against 10.9 s, 17.9 CPU s against
# 20.0; docs/benchmarks.md). Each open writer buffers its file: a Parquet row group at most.
SQL_DEFAULTS = {
    "spark.sql.ansi.enabled": "false",
    "spark.sql.legacy.javaCharsets": "true",
    "spark.sql.legacy.codingErrorAction": "true",
    "spark.sql.maxConcurrentOutputFileWriters": "16",
}
JOB_KINDS = {Kind.QUERY: JobKind.SELECT, Kind.INSERT: JobKind.INSERT, Kind.STATEMENT_SET: JobKind.STATEMENT_SET}


def settings_name(settings: dict[str, str]) -> str | None:
    """'pipeline.name' as a file name."""
    name = settings.get("pipeline.name")
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name) if name else None


log = logging.getLogger("sqlengine.engine")


@dataclass
class Result:
    outcome: Outcome
    job: Job | None = None
    columns: tuple[str, ...] = ()
    rows: tuple[tuple[object, ...], ...] = ()
    message: str | None = None


PARTITIONS = "spark.sql.shuffle.partitions"  # a stateful operator's stores, one per partition


class Engine:
    def __init__(
        self,
        home: str | Path | None = None,
        *,
        master: str | None = None,
        remote: str | None = None,
        conf: dict[str, str] | None = None,
        variables: dict[str, str] | None = None,
        settings: dict[str, str] | None = None,
        catalog: Catalog | None = None,
        spark: SparkSession | None = None,
    ):
        self.home = resolve_home(home)
        self.catalog = catalog or Catalog.open(self.home)
        self.planner = PlannerSession(self.catalog, settings=settings, variables=variables)
        self.master, self.remote = master, remote
        self.conf = dict(conf or {})
        partitions = self.conf.get(PARTITIONS) or (spark.conf.get(PARTITIONS, None) if spark is not None and remote is None else None)
        if partitions:  # the stores a stateful operator has (the state estimates count them)
            self.planner.environment[PARTITIONS] = partitions
        if remote is not None or not jvm.available():  # Spark Connect has no py4j; a JRE no javac
            self.planner.environment[JVM_SETTING] = "false"
        self._spark: SparkSession | None = spark
        self._spark_error: BaseException | None = None
        self._spark_thread: threading.Thread | None = None
        self._jobs: JobManager | None = None
        self._transient: list[Location] = []  # the SELECTs' checkpoints, removed by cleanup_tmp

    # -- Spark ---------------------------------------------------------------------------------

    def start_spark_in_background(self) -> None:
        if self._spark is not None or self._spark_thread is not None:
            return
        self._spark_thread = threading.Thread(target=self._start_spark, name="spark-start", daemon=True)
        self._spark_thread.start()

    def _start_spark(self) -> None:
        try:
            from sqlengine.session import create_session

            conf = {**SQL_DEFAULTS, **self.conf}
            conf.update({k: v for k, v in self.planner.settings.items() if k.startswith("spark.")})
            self._spark = create_session(master=self.master, remote=self.remote, conf=conf, log_dir=self.home / "logs")
        except BaseException as err:  # surfaced when a statement needs Spark
            self._spark_error = err

    @property
    def spark_ready(self) -> bool:
        return self._spark is not None

    @property
    def spark(self) -> SparkSession:
        if self._spark is None:
            if self._spark_thread is None:
                self._start_spark()
            else:
                self._spark_thread.join()
            if self._spark is None:
                raise self._spark_error or RuntimeError("Spark did not start")
        return self._spark

    @property
    def jobs(self) -> JobManager:
        if self._jobs is None:
            self._jobs = JobManager(self.home)
        return self._jobs

    def job_list(self) -> list[Job]:
        return list(self._jobs.jobs.values()) if self._jobs is not None else []

    # -- statements ----------------------------------------------------------------------------

    def plan(self, stmt: Statement) -> Outcome:
        return self.planner.execute(stmt)

    @property
    def streaming(self) -> bool:
        return is_streaming(self.planner.settings)

    def sql_conf(self, settings: dict[str, str]) -> dict[str, str]:
        """The Spark SQL settings a job runs with: ours, the engine's ``--conf``, then the
        session's ``SET 'spark.sql...'`` as they were when the statement was planned."""
        chosen = {k: v for k, v in settings.items() if k.startswith("spark.") or k in state_backend.KEYS}
        conf = {**SQL_DEFAULTS, **self.conf, **chosen}
        return {k: v for k, v in session_overrides(conf).items() if k.startswith("spark.sql.")}

    def start(self, outcome: Outcome, *, name: str | None = None) -> Job:
        """Start the job of a planned query, INSERT or statement set, in the runtime mode it was
        planned for. What Spark cannot run is refused here, before anything starts."""
        from sqlengine.session import job_session
        from sqlengine.translate import TranslationError, translate

        analysis = outcome.analysis
        assert analysis is not None, "only queries, INSERTs and statement sets start jobs"
        stmt = outcome.statement
        if analysis.problems:
            raise located(TranslationError.of(analysis.problems[0]), stmt.source, stmt.span)
        streaming = analysis.streaming
        job_id = JobManager.new_id()
        try:
            root = checkpoint_root.root(outcome.settings, self.home, remote=self.remote is not None)
        except checkpoint_root.NotLocal as err:
            raise located(PlanningError(str(err)), stmt.source, stmt.span) from None
        if outcome.kind == Kind.QUERY:
            key = f"select-{job_id}"
            # a SELECT's checkpoint lives as long as the session: beside the others when they
            # are on a shared directory (a cluster's executors write there), else in the home
            checkpoint = root / "tmp" / key if checkpoint_root.is_set(outcome.settings) else self.home / "tmp" / key
            self._transient.append(checkpoint)
        else:
            key = settings_name(outcome.settings) or self._job_key(outcome, streaming)
            checkpoint = root / key
        batch_analysis = self._one_batch(outcome, checkpoint) if streaming else None
        if batch_analysis is not None:
            analysis, streaming = batch_analysis, False
        spark = job_session(self.spark, self.sql_conf(outcome.settings))
        pipelines = []
        result = None
        buckets = changelog_buckets(outcome.settings)
        for i, plan in enumerate(outcome.plans):
            try:
                translated = translate(plan, analysis, spark, job_dir=checkpoint, buckets=buckets, source=stmt.source)
                if isinstance(plan, Sink):
                    pipelines.append(sink_pipeline(plan, translated, f"{key}-{i}", streaming, checkpoint))
                else:
                    from sqlengine.results import ResultTable

                    upsert_key = () if translated.kind_column else translated.upsert_key
                    result = ResultTable(
                        tuple(f.name for f in plan.fields), upsert_key, changelog=translated.kind_column is not None,
                        types=tuple(f.type for f in plan.fields),
                    )
                    pipelines.append(result_pipeline(translated, result, f"{key}-{i}", streaming, plan, analysis.time_zone))
            except PlanningError as err:
                raise located(err, stmt.source, stmt.span) from None
            except ConnectorError as err:  # a sink's options, shown at the statement
                raise located(PlanningError(str(err), plan.origin), stmt.source, stmt.span) from None
            except OSError as err:  # the job's directory could not be written (storage.StorageError)
                raise located(PlanningError(str(err)), stmt.source, stmt.span) from None
            except Exception as err:
                if not errors.from_spark(err):
                    raise
                raise _spark_refused(err, stmt) from None
        sources = [s for p in pipelines for s in p.translated.sources]
        for conf_key, conf_value in split_conf(spark, sources, self.sql_conf(outcome.settings)).items():
            spark.conf.set(conf_key, conf_value)  # read when Spark plans the scans (``key`` names the job)
        if any(p.translated.changelog_operators for p in pipelines):
            # transformWithState keeps its state only in RocksDB
            for conf_key, conf_value in state_backend.provider_conf("rocksdb").items():
                spark.conf.set(conf_key, conf_value)
        notes: list[str] = []
        if batch_analysis is not None:
            notes.append(f"its bounded input comes in one micro-batch, so it runs as one batch job "
                         f"('{one_batch.SETTING}' = 'false' runs it as a streaming job)")
        if streaming and (local := checkpoint_root.local_only_note(self.master, outcome.settings, self.home)):
            notes.append(local)
        if outcome.kind != Kind.QUERY and streaming:
            # Spark keeps the state store a checkpoint (or the savepoint copied in) was written with
            recorded = _recorded_backend(outcome.settings, checkpoint, len(pipelines))
            wanted = state_backend.in_force(spark)
            notes += self._resume(outcome, pipelines, checkpoint, spark, buckets, recorded or wanted)
            notes += _backend_notes(recorded, wanted, outcome.settings)
        elif outcome.kind != Kind.QUERY and outcome.settings.get(savepoints.SAVEPOINT_PATH):
            notes.append(f"'{savepoints.SAVEPOINT_PATH}' is not used in batch mode (a batch job keeps no state)")
        if outcome.kind != Kind.QUERY:
            from_savepoint = streaming and bool(outcome.settings.get(savepoints.SAVEPOINT_PATH))
            try:
                claim_file_sinks(outcome.plans, checkpoint, streaming, from_savepoint)
            except PlanningError as err:
                raise located(err, stmt.source, stmt.span) from None
        job = Job(
            id=job_id,
            name=name or settings_name(outcome.settings) or key,
            sql=stmt.text,
            kind=JOB_KINDS[outcome.kind],
            checkpoint=checkpoint,
            pipelines=pipelines,
            # the same fact the operators' timers were chosen by (Translator.bounded)
            bounded=streaming and analysis.bounded,
            spark=spark,
            end_of_input=EndOfInput.of(sources),
            result=result,
            batch=not streaming,
            one_batch=batch_analysis is not None,
            operators=operators_of(outcome.plans, analysis) if streaming else (),
            notes=tuple(notes),
        )
        return self.jobs.submit(job)

    def _one_batch(self, outcome: Outcome, checkpoint: Location) -> Analysis | None:
        """The batch analysis a bounded streaming job runs with as one batch job
        (planner.analysis.one_batch), or None: it runs as planned. Not when there is state to
        start from: a checkpoint of an earlier run (a streaming run's, or FINISHED), or a savepoint
        (which the planner's verdict already says)."""
        assert outcome.analysis is not None
        verdict = outcome.analysis.one_batch
        if verdict is None or not verdict.ok:
            return None
        if outcome.kind != Kind.QUERY and checkpoint.exists() and any(checkpoint.iterdir()):
            return None
        # the verdict checked the plans in batch mode already: this analysis finds no problem
        return self.planner.batch_analysis(outcome)

    def _resume(self, outcome: Outcome, pipelines: list[Pipeline], checkpoint: Location, spark: SparkSession, buckets: int,
                backend: str) -> list[str]:
        """Check that the job's stateful operators can take over the state it starts from (its
        checkpoint, or the savepoint of 'execution.savepoint.path'), lay that state out, and keep
        the new plan's fingerprint beside it. Refused: a positioned error, nothing started."""
        from planner.resume import job_print

        assert outcome.analysis is not None
        stmt = outcome.statement
        sources = [[s.table + (" + end-of-input marker" if s.marker_dir else "") for s in p.translated.sources] for p in pipelines]
        fingerprint = job_print(outcome.analysis, backend=backend.rsplit(".", 1)[-1], buckets=buckets, sources=sources)
        try:
            resume = savepoints.plan_resume(outcome.settings, fingerprint, checkpoint, settings_name(outcome.settings))
            if resume.savepoint is not None:
                resume.notes.extend(file_sinks_ahead(outcome.plans, resume.savepoint))
            savepoints.apply(resume, checkpoint, len(pipelines))
            for p in pipelines:  # the end-of-input markers' directories, gone if a savepoint replaced the checkpoint
                for src in p.translated.sources:
                    if src.marker_dir is not None:
                        src.marker_dir.mkdir(parents=True, exist_ok=True)
            savepoints.write_print(checkpoint, fingerprint)
        except savepoints.Refused as err:
            node = next((n for n in distinct_nodes(outcome.plans) if n.node_id == err.node), None)
            raise located(PlanningError(err.message, node.origin if node else None, err.hint), stmt.source, stmt.span) from None
        except (savepoints.SavepointError, OSError) as err:
            raise located(PlanningError(str(err)), stmt.source, stmt.span) from None
        return resume.notes

    def savepoint_root(self) -> Location:
        """Where the next savepoint goes: the session's 'execution.checkpointing.savepoint-dir'
        (``state.savepoints.dir``), or ``<home>/savepoints``; raises NotLocal (a ValueError)
        for a file system sqlengine cannot read."""
        return checkpoint_root.savepoint_root(self.planner.settings, self.home, remote=self.remote is not None)

    def take_savepoint(self, job: Job) -> Location:
        """A savepoint of a job ``STOP JOB ... WITH SAVEPOINT`` has stopped (``savepoints.check_can_take``
        and ``savepoint_root`` are asked before it is stopped)."""
        return savepoints.take(job, self.savepoint_root())

    def _job_key(self, outcome: Outcome, streaming: bool) -> str:
        canonical = outcome.tree.sql(dialect=Flink)
        sinks = "-".join(p.table.name for p in outcome.plans if isinstance(p, Sink))
        digest = hashlib.sha1(f"{canonical}|{streaming}".encode()).hexdigest()[:12]
        return f"{sinks or 'job'}-{digest}"

    def stop_all(self) -> None:
        for job in self.job_list():
            if not job.done:
                job.stop()
        for job in self.job_list():
            job.wait(30)

    def cleanup_tmp(self) -> None:
        """The SELECTs' checkpoints: the home's, and this session's on a shared checkpoint
        directory (other sessions' are theirs to remove)."""
        shutil.rmtree(self.home / "tmp", ignore_errors=True)
        for path in self._transient:
            storage.rmtree(path)
        self._transient.clear()


def _recorded_backend(settings: dict[str, str], checkpoint: Location, queries: int) -> str | None:
    """The state store the job's state was written with: its savepoint's, or its checkpoint's
    (None: a new job)."""
    path = settings.get(savepoints.SAVEPOINT_PATH)
    source = storage.location(path) if path else checkpoint
    return next((p for i in range(queries) if (p := state_backend.in_checkpoint(source / f"q{i}"))), None)


def _backend_notes(recorded: str | None, wanted: str, settings: dict[str, str]) -> list[str]:
    """What to tell the user when the state backend in force is not the one the job's state was
    written with: Spark resumes with the one it was written with."""
    if recorded is None or recorded == wanted:
        return []
    asked = "" if any(k in settings for k in state_backend.KEYS) else " (the default)"
    return [
        f"The job resumes its checkpoint, whose state is kept in '{state_backend.name_of(recorded)}'; "
        f"'state.backend.type' = '{state_backend.name_of(wanted)}'{asked} applies to a new checkpoint only "
        "(another 'pipeline.name', or the checkpoint removed)"
    ]


def _spark_refused(err: BaseException, stmt: Statement) -> SqlError:
    """Spark refused to plan a translated statement: one line at the statement (at what the error
    names, when the statement has it), never Spark's plan or trace; those go to the log."""
    log.error("Spark refused the statement at %s:%d", stmt.source.name, stmt.line, exc_info=err)
    span, why = stmt.span, errors.describe(err)
    found = errors.named_in(why, stmt.text)
    if found is not None:
        span = Span(stmt.span.start + found[0], stmt.span.start + found[1])
    return SqlError(f"Spark cannot run this statement: {why}", stmt.source, span, code="E003")


__all__ = ["Engine", "Result", "Status"]


def operators_of(plans: Sequence[Node], analysis: Analysis) -> tuple[tuple[str, str], ...]:
    """How each stateful operator of the plans runs: (operator and node id, native or changelog
    operator and why), for SHOW JOBS and DESCRIBE JOB."""
    out = []
    for node in distinct_nodes(plans):
        physical = analysis.physical_of(node)
        if physical is not None and (node.stateful or physical.changelog):
            out.append((f"{node.kind} {node.node_id}", str(physical)))
    return tuple(out)
