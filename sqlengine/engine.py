"""The engine: the catalog and planner session, a Spark session (started lazily, optionally in
the background), and the jobs it runs. The shell and ``sqlengine run`` drive it statement by
statement through ``execute``."""

from __future__ import annotations

import hashlib
import logging
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from catalog import Catalog, TableDef
from catalog.home import resolve_home
from planner.dialect import Flink
from planner.logical.operators import Sink
from planner.problems import PlanningError, located
from planner.script import Statement
from planner.session import Kind, Outcome, PlannerSession
from sqlengine.jobs import Job, JobManager, Pipeline, Status

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("sqlengine.engine")


@dataclass
class Result:
    outcome: Outcome
    job: Job | None = None
    columns: tuple[str, ...] = ()
    rows: tuple[tuple, ...] = ()
    message: str | None = None


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
        self._spark: SparkSession | None = spark
        self._spark_error: BaseException | None = None
        self._spark_thread: threading.Thread | None = None
        self._jobs: JobManager | None = None

    # -- Spark ---------------------------------------------------------------------------------

    def start_spark_in_background(self) -> None:
        if self._spark is not None or self._spark_thread is not None:
            return
        self._spark_thread = threading.Thread(target=self._start_spark, name="spark-start", daemon=True)
        self._spark_thread.start()

    def _start_spark(self) -> None:
        try:
            from sqlengine.session import create_session

            conf = {"spark.sql.ansi.enabled": "false", **self.conf}
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
            self._jobs = JobManager(self.spark, self.home)
        return self._jobs

    def job_list(self) -> list[Job]:
        return list(self._jobs.jobs.values()) if self._jobs is not None else []

    # -- statements ----------------------------------------------------------------------------

    def plan(self, stmt: Statement) -> Outcome:
        return self.planner.execute(stmt)

    @property
    def streaming(self) -> bool:
        return self.planner.settings.get("execution.runtime-mode", "streaming") != "batch"

    def start(self, outcome: Outcome, *, name: str | None = None) -> Job:
        """Start the job of a planned query, INSERT or statement set."""
        from sqlengine.translate import translate

        spark = self.spark
        streaming = self.streaming
        sql = outcome.statement.text
        if outcome.kind == Kind.QUERY:
            job_id = JobManager.new_id()
            key = f"select-{job_id}"
            checkpoint = self.home / "tmp" / key
        else:
            job_id = JobManager.new_id()
            key = self.settings_name() or self._job_key(outcome)
            checkpoint = self.jobs.checkpoint_dir(key)
        if streaming:
            from planner.spark_support import ttl_problem
            from sqlengine.translate.errors import TranslationError

            refused = ttl_problem(outcome.analysis.state)
            if refused is not None:
                err = TranslationError(f"{refused.node.kind}: {refused.reason}", refused.node.origin)
                raise located(err, outcome.statement.source, outcome.statement.span)
        pipelines = []
        result = None
        for i, plan in enumerate(outcome.plans):
            try:
                translated = translate(
                    plan,
                    outcome.analysis.props,
                    spark,
                    streaming=streaming,
                    job_dir=checkpoint,
                    functions=self.catalog.get_function,
                )
            except PlanningError as err:
                raise located(err, outcome.statement.source, outcome.statement.span) from None
            if isinstance(plan, Sink):
                from sqlengine.connectors.errors import ConnectorError

                try:
                    pipelines.append(self._sink_pipeline(plan, translated, f"{key}-{i}", checkpoint, streaming))
                except ConnectorError as err:
                    raise located(PlanningError(str(err), plan.origin), outcome.statement.source, outcome.statement.span) from None
            else:
                from sqlengine.results import ResultTable

                result = ResultTable(tuple(f.name for f in plan.fields), translated.upsert_key)
                pipelines.append(self._result_pipeline(translated, result, f"{key}-{i}", streaming, plan))
        bounded = all(p.translated.bounded for p in pipelines) if streaming else True
        job = Job(
            id=job_id,
            name=name or self.settings_name() or key,
            sql=sql,
            kind={Kind.QUERY: "select", Kind.INSERT: "insert", Kind.STATEMENT_SET: "statement-set"}.get(outcome.kind, "insert"),
            checkpoint=checkpoint,
            pipelines=pipelines,
            bounded=bounded,
            result=result,
        )
        if not streaming:
            job.bounded, job.batch = False, True
            for p in pipelines:
                p.start = _batch_start(p.start)
        return self.jobs.submit(job)

    def settings_name(self) -> str | None:
        name = self.planner.settings.get("pipeline.name")
        return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name) if name else None

    def _job_key(self, outcome: Outcome) -> str:
        canonical = outcome.tree.sql(dialect=Flink)
        sinks = "-".join(p.table.name for p in outcome.plans if isinstance(p, Sink))
        digest = hashlib.sha1(f"{canonical}|{self.streaming}".encode()).hexdigest()[:12]
        return f"{sinks or 'job'}-{digest}"

    def _sink_pipeline(self, plan: Sink, translated, name: str, checkpoint: Path, streaming: bool) -> Pipeline:  # type: ignore[no-untyped-def]
        from pyspark.sql import functions as F

        from sqlengine.connectors import get_connector
        from sqlengine.connectors.base import SinkRequest
        from sqlengine.types import spark_type

        table: TableDef = plan.table
        df = translated.df
        persisted = [(c.name, spark_type(c.type or "STRING")) for c in table.columns if c.is_persisted]
        # the select is left out when it would change nothing (each costs Spark an analysis of the
        # whole plan); a watermark mark on a column is taken off, not written into the files
        fields = df.schema.fields
        if [(f.name, f.dataType) for f in fields] != persisted or any(f.metadata for f in fields):
            df = df.select(*[F.col(f"`{n}`").cast(t).alias(n) for n, t in persisted])
        connector = get_connector(table.connector)
        request = SinkRequest(
            table=table,
            streaming=streaming,
            output_mode=translated.output_mode,
            upsert_key=translated.upsert_key,
            job_dir=checkpoint,
            overwrite=plan.overwrite,
        )
        writer_holder: dict = {}

        def start(trigger: dict, ck: Path):  # type: ignore[no-untyped-def]
            if not streaming:
                connector.sink(df, request)
                return None
            writer = connector.sink(df, request)
            writer_holder["w"] = writer
            return writer.option("checkpointLocation", str(ck)).queryName(name).trigger(**trigger).start()

        return Pipeline(name, translated, start)

    def _result_pipeline(self, translated, result, name: str, streaming: bool, plan=None) -> Pipeline:  # type: ignore[no-untyped-def]
        df = translated.df
        if plan is not None:
            df = _typed_like(df, plan.fields)

        def collect(batch_df, batch_id):  # type: ignore[no-untyped-def]
            result.apply(batch_id, [tuple(r) for r in batch_df.collect()])

        def start(trigger: dict, ck: Path):  # type: ignore[no-untyped-def]
            if not streaming:
                result.apply(0, [tuple(r) for r in df.collect()])
                return None
            writer = df.writeStream.outputMode(translated.output_mode).foreachBatch(collect)
            return writer.option("checkpointLocation", str(ck)).queryName(name).trigger(**trigger).start()

        return Pipeline(name, translated, start)

    def stop_all(self) -> None:
        for job in self.job_list():
            if not job.done:
                job.stop()
        for job in self.job_list():
            job.wait(30)

    def cleanup_tmp(self) -> None:
        shutil.rmtree(self.home / "tmp", ignore_errors=True)


def _typed_like(df, fields):  # type: ignore[no-untyped-def]
    """Result columns in the types the query declares (a rowtime computed as Spark's TIMESTAMP
    goes back to Flink's TIMESTAMP, a wall-clock value with no zone)."""
    from pyspark.sql import functions as F

    from sqlengine.types import UnsupportedType, spark_type

    cols = []
    for f, c in zip(fields, df.columns):
        try:
            target = spark_type(f.type)
        except (UnsupportedType, Exception):
            cols.append(F.col(f"`{c}`"))
            continue
        cols.append(F.col(f"`{c}`").cast(target).alias(c) if df.schema[c].dataType != target else F.col(f"`{c}`"))
    return df.select(*cols)


def _batch_start(start):  # type: ignore[no-untyped-def]
    """A batch pipeline runs once, synchronously, inside the job's thread."""
    ran = {"done": False}

    def run(trigger: dict, ck: Path):  # type: ignore[no-untyped-def]
        if not ran["done"]:
            start(trigger, ck)
            ran["done"] = True
        return _Finished()

    return run


class _Finished:
    """Stands in for a StreamingQuery that has already ended."""

    isActive = False
    name = "batch"
    id = "batch"
    recentProgress: list = []

    def exception(self):  # type: ignore[no-untyped-def]
        return None

    def stop(self) -> None:
        pass


__all__ = ["Engine", "Result", "Status"]
