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
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from catalog import Catalog, TableDef
from catalog.connectors import spec_of
from catalog.home import resolve_home
from planner.analysis.analyze import Analysis, is_streaming
from planner.analysis.physical import changelog_buckets
from planner.dialect import Flink
from planner.errors import SqlError
from planner.logical import typing as T
from planner.logical.fields import Field
from planner.logical.operators import Node, Sink
from planner.logical.visit import distinct_nodes
from planner.problems import PlanningError, located
from planner.source import Span
from planner.statements.script import Statement
from planner.statements.session import Kind, Outcome, PlannerSession
from sqlengine import checkpoint_root, errors, savepoints, state_backend, storage
from sqlengine.connectors import file_sink_owner as owner
from sqlengine.connectors.errors import ConnectorError
from sqlengine.end_of_input import EndOfInput
from sqlengine.jobs import Job, JobKind, JobManager, Pipeline, Start, Status, Trigger
from sqlengine.session import session_overrides
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

    from sqlengine.results import ResultTable
    from sqlengine.translate import Translated

# Flink's semantics where Spark's defaults differ: ANSI mode raises on overflow and bad casts;
# Flink's ENCODE / DECODE are Java's String.getBytes / new String, which take any charset Java
# knows and replace what a charset cannot code ('?', U+FFFD), where Spark 4 takes seven charsets
# and raises (the two legacy settings give Java's)
SQL_DEFAULTS = {
    "spark.sql.ansi.enabled": "false",
    "spark.sql.legacy.javaCharsets": "true",
    "spark.sql.legacy.codingErrorAction": "true",
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
        spark = job_session(self.spark, self.sql_conf(outcome.settings))
        pipelines = []
        result = None
        buckets = changelog_buckets(outcome.settings)
        for i, plan in enumerate(outcome.plans):
            try:
                translated = translate(plan, analysis, spark, job_dir=checkpoint, buckets=buckets, source=stmt.source)
                if isinstance(plan, Sink):
                    pipelines.append(self._sink_pipeline(plan, translated, f"{key}-{i}", streaming, checkpoint))
                else:
                    from sqlengine.results import ResultTable

                    upsert_key = () if translated.kind_column else translated.upsert_key
                    result = ResultTable(
                        tuple(f.name for f in plan.fields), upsert_key, changelog=translated.kind_column is not None,
                        types=tuple(f.type for f in plan.fields),
                    )
                    pipelines.append(_result_pipeline(translated, result, f"{key}-{i}", streaming, plan, analysis.time_zone))
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
        if any(p.translated.changelog_operators for p in pipelines):
            # transformWithState keeps its state only in RocksDB
            for key, value in state_backend.provider_conf("rocksdb").items():
                spark.conf.set(key, value)
        notes: list[str] = []
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
                _claim_file_sinks(outcome.plans, checkpoint, streaming, from_savepoint)
            except PlanningError as err:
                raise located(err, stmt.source, stmt.span) from None
        sources = [s for p in pipelines for s in p.translated.sources]
        bounded = streaming and all(p.translated.bounded for p in pipelines)
        job = Job(
            id=job_id,
            name=name or settings_name(outcome.settings) or key,
            sql=stmt.text,
            kind=JOB_KINDS[outcome.kind],
            checkpoint=checkpoint,
            pipelines=pipelines,
            bounded=bounded,
            spark=spark,
            end_of_input=EndOfInput.of(sources),
            result=result,
            batch=not streaming,
            operators=operators_of(outcome.plans, analysis) if streaming else (),
            notes=tuple(notes),
        )
        return self.jobs.submit(job)

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
                resume.notes.extend(_file_sinks_ahead(outcome.plans, resume.savepoint))
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

    def _sink_pipeline(self, plan: Sink, translated: Translated, name: str, streaming: bool, job_dir: Location) -> Pipeline:
        from pyspark.sql import functions as F

        from sqlengine.connectors import get_connector
        from sqlengine.connectors.base import SinkRequest
        from sqlengine.types import spark_type

        table: TableDef = plan.table
        df = translated.df
        persisted = [(c.name, spark_type(c.type or "STRING")) for c in table.columns if c.is_persisted]
        connector = get_connector(table.connector)
        spec = spec_of(table)
        # a changelog's kind column goes to a sink that takes updates; to one that only appends
        # (the checker let only +I rows through), the rows go without it
        kind = translated.kind_column if spec is None or spec.accepts_updates else None
        # the select is left out when it would change nothing (each costs Spark an analysis of the
        # whole plan); a watermark mark on a column is taken off, not written into the files
        fields = df.schema.fields
        wanted = ([(kind, fields[0].dataType)] if kind else []) + persisted
        if [(f.name, f.dataType) for f in fields] != wanted or any(f.metadata for f in fields):
            df = df.select(*([F.col(f"`{kind}`")] if kind else []), *[F.col(f"`{n}`").cast(t).alias(n) for n, t in persisted])
        if streaming:
            df = _time_as_text(df, table, plan)
        request = SinkRequest(
            table=table,
            streaming=streaming,
            output_mode=translated.output_mode,
            upsert_key=translated.upsert_key,
            job_dir=job_dir,
            overwrite=plan.overwrite,
            kind_column=kind,
        )

        def start(trigger: Trigger, ck: Location) -> StreamingQuery | None:
            writer = connector.sink(df, request)
            if writer is None:  # batch: written already
                return None
            return trigger.apply(writer.option("checkpointLocation", str(ck)).queryName(name)).start()

        return Pipeline(name, translated, _once(start) if not streaming else start)

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


def _local_file_sinks(plans: Sequence[Node]) -> list[tuple[int, Sink, Path]]:
    """The job's filesystem sinks on a local path: each query's index, its plan, its directory."""
    return [
        (i, p, d)
        for i, p in enumerate(plans)
        if isinstance(p, Sink) and p.table.connector == "filesystem"
        and (d := owner.local_directory(p.table.options.get("path") or "")) is not None
    ]


def _file_sinks_ahead(plans: Sequence[Node], savepoint: Location) -> list[str]:
    """Warnings for the file sinks that have gone past the savepoint (``savepoints.file_sink_ahead``)."""
    notes = (savepoints.file_sink_ahead(savepoint / f"q{i}", d) for i, _, d in _local_file_sinks(plans))
    return [n for n in notes if n]


def _spark_refused(err: BaseException, stmt: Statement) -> SqlError:
    """Spark refused to plan a translated statement: one line at the statement (at what the error
    names, when the statement has it), never Spark's plan or trace; those go to the log."""
    log.error("Spark refused the statement at %s:%d", stmt.source.name, stmt.line, exc_info=err)
    span, why = stmt.span, errors.describe(err)
    found = errors.named_in(why, stmt.text)
    if found is not None:
        span = Span(stmt.span.start + found[0], stmt.span.start + found[1])
    return SqlError(f"Spark cannot run this statement: {why}", stmt.source, span, code="E003")


def _claim_file_sinks(plans: Sequence[Node], checkpoint: Location, streaming: bool, from_savepoint: bool) -> None:
    """Refuse a filesystem sink whose directory would lose rows to Spark's commit log, and record
    a streaming query as its directory's writer (``connectors.file_sink_owner``)."""
    sinks = _local_file_sinks(plans)
    clash = owner.same_directory([(p.table.name, d) for _, p, d in sinks])
    if clash:
        raise PlanningError(clash, sinks[-1][1].origin)
    for i, plan, directory in sinks:
        try:
            if streaming:
                owner.claim_for_streaming(owner.SinkDir(directory, checkpoint / f"q{i}"), from_savepoint=from_savepoint)
            else:
                owner.check_for_batch(directory, overwrite=plan.overwrite)
        except owner.SinkDirectoryTaken as err:
            raise PlanningError(str(err), plan.origin) from None


# formats that write a TIME as its text ('13:45:30'), as Flink's do; the connectors that print
_TEXT_FORMATS = frozenset({"json", "csv", "raw", "debezium-json", "canal-json", "maxwell-json", "ogg-json"})
_TEXT_CONNECTORS = frozenset({"print", "blackhole"})


def _time_as_text(df: DataFrame, table: TableDef, plan: Sink) -> DataFrame:
    """Spark's stream writer refuses a TIME column (UNSUPPORTED_TIME_TYPE) that its batch writer
    takes. A sink that writes text gets the TIME's text, which is what it would write; a binary
    format (Parquet, Avro, ORC) has no such way, and the job is refused before it starts."""
    times = [f.name for f in df.schema.fields if f.dataType.typeName() == "time"]
    if not times:
        return df
    formats = {v.lower() for k, v in table.options.items() if k in ("format", "value.format", "key.format")}
    if table.connector not in _TEXT_CONNECTORS and not formats <= _TEXT_FORMATS:
        written = ", ".join(sorted(formats)) or table.connector
        raise PlanningError(
            f"a streaming job cannot write the TIME column `{times[0]}` of {table.name} ({written}) on Spark: its stream "
            "writer takes no TIME; write it to a JSON or CSV table, or CAST it to STRING",
            plan.origin,
        )
    return _cast_columns(df, dict.fromkeys(times, "string"))


def _cast_columns(df: DataFrame, types: dict[str, Any]) -> DataFrame:
    """``df`` with the columns named in ``types`` cast to their type there, the others as they are."""
    from pyspark.sql import functions as F

    return df.select(*[F.col(f"`{c}`").cast(types[c]).alias(c) if c in types else F.col(f"`{c}`") for c in df.columns])


def _result_pipeline(translated: Translated, result: ResultTable, name: str, streaming: bool, plan: Node, zone: str) -> Pipeline:
    from sqlengine.spark_connect import ResultBatches, is_connect

    df = _typed_like(translated.df, plan.fields, translated.kind_column, zone)
    remote = ResultBatches(lambda n, rows: result.apply(n, [tuple(r) for r in rows])) if is_connect(df.sparkSession) else None
    # Spark's stream writer refuses a TIME column (UNSUPPORTED_TIME_TYPE) that a batch takes:
    # TIME crosses the writer as its text and is read back in each micro-batch
    times = {f.name: f.dataType for f in df.schema.fields if f.dataType.typeName() == "time"} if streaming and remote is None else {}
    if times:
        df = _cast_columns(df, dict.fromkeys(times, "string"))

    def collect(batch_df: DataFrame, batch_id: int) -> None:
        if times:
            batch_df = _cast_columns(batch_df, times)
        result.apply(batch_id, [tuple(r) for r in batch_df.collect()])

    def start(trigger: Trigger, ck: Location) -> StreamingQuery | None:
        if not streaming:
            result.apply(0, [tuple(r) for r in df.collect()])
            return None
        if remote is not None:  # Spark Connect: the client reads the rows (sqlengine.spark_connect)
            query = trigger.apply(remote.start(df, translated.output_mode, ck).option("checkpointLocation", str(ck)).queryName(name)).start()
            remote.query = query
            return query
        writer = df.writeStream.outputMode(translated.output_mode).foreachBatch(collect)
        return trigger.apply(writer.option("checkpointLocation", str(ck)).queryName(name)).start()

    return Pipeline(name, translated, _once(start) if not streaming else start, drain=remote.drain if remote else None)


def _typed_like(df: DataFrame, fields: tuple[Field, ...], kind: str | None = None, zone: str | None = None) -> DataFrame:
    """Result columns in the types the query declares (a rowtime computed as Spark's TIMESTAMP
    goes back to Flink's TIMESTAMP, a wall-clock value with no zone); a changelog's kind column
    stays first. ``zone``: rows read by the shell show a TIMESTAMP_LTZ as its wall time in the
    session's zone, as Flink's SQL client prints it (whatever the zone of the Python process)."""
    from pyspark.sql import functions as F

    from sqlengine.types import UnsupportedType, spark_type

    cols = [F.col(f"`{kind}`")] if kind else []
    for f, c in zip(fields, df.columns[1:] if kind else df.columns, strict=True):
        if zone is not None and T.is_type(f.type, exp.DType.TIMESTAMPLTZ):
            cols.append(F.from_utc_timestamp(F.col(f"`{c}`"), zone).cast("timestamp_ntz").alias(c))
            continue
        try:
            target = spark_type(f.type)
        except UnsupportedType:  # a type Spark has no counterpart of: as Spark computed it
            cols.append(F.col(f"`{c}`"))
            continue
        # the same type up to the nullability of its elements stays (Spark casts no nullable
        # map value or array element to a non-nullable one, and nothing is gained)
        same = df.schema[c].dataType.simpleString() == target.simpleString()
        cols.append(F.col(f"`{c}`") if same else F.col(f"`{c}`").cast(target).alias(c))
    return df.select(*cols)


def _once(start: Start) -> Start:
    """A batch pipeline runs once, synchronously, inside the job's thread."""
    ran = False

    def run(trigger: Trigger, ck: Location) -> StreamingQuery | None:
        nonlocal ran
        if not ran:
            start(trigger, ck)
            ran = True
        return None

    return run


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
