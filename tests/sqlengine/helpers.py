"""Shared helpers for the streaming = batch tests: write input files, run SQL through the real
engine in either runtime mode, and compare results as multisets of rows."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from planner.statements.script import parse_script
from planner.statements.session import Kind

BASE = dt.datetime(2024, 1, 1)


def ts(seconds: float) -> dt.datetime:
    """A timestamp ``seconds`` after 2024-01-01 00:00:00 (millisecond precision)."""
    return BASE + dt.timedelta(milliseconds=round(seconds * 1000))


def ts_text(value: dt.datetime | float | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dt.datetime):
        value = ts(value)
    return value.isoformat(sep=" ", timespec="milliseconds")


def _json_value(v):
    if isinstance(v, dt.datetime):
        return ts_text(v)
    if isinstance(v, decimal.Decimal):
        return str(v)
    return v


def write_json(path: Path, rows: Iterable[dict]) -> Path:
    """JSON lines, one object per row (datetimes as 'yyyy-MM-dd HH:mm:ss.SSS')."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        for row in rows:
            fh.write(json.dumps({k: _json_value(v) for k, v in row.items()}) + "\n")
    return path


def in_read_order(path: Path, index: int) -> Path:
    """Give the ``index``-th file of a directory a modification time a second after the one
    before: Spark's file source reads new files oldest first, and files written (or checked out)
    within one millisecond would come in any order."""
    os.utime(path, (1_700_000_000 + index, 1_700_000_000 + index))
    return path


def write_batches(directory: Path, batches: list[list[dict]]) -> Path:
    """One file per batch, read by Spark's file source in order: part-000.json, part-001.json, ..."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, rows in enumerate(batches):
        in_read_order(write_json(directory / f"part-{i:03d}.json", rows), i)
    return directory


def norm(value):
    """A comparable form of a result value (floats to 9 significant digits; Rows to tuples)."""
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        return float(f"{value:.9g}")
    if hasattr(value, "asDict"):
        return tuple(norm(v) for v in value)
    if isinstance(value, (list, tuple)):
        return tuple(norm(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, norm(v)) for k, v in value.items()))
    return value


def multiset(rows: Iterable[Iterable]) -> Counter:
    return Counter(tuple(norm(v) for v in row) for row in rows)


def diff(expected: Counter, got: Counter, limit: int = 5) -> str:
    missing = list((expected - got).elements())[:limit]
    extra = list((got - expected).elements())[:limit]
    return (
        f"{sum(expected.values())} expected rows, {sum(got.values())} got; "
        f"missing {len(list((expected - got).elements()))} e.g. {missing}; "
        f"unexpected {len(list((got - expected).elements()))} e.g. {extra}"
    )


class JobFailed(AssertionError):
    pass


class Sql:
    """Runs SQL text through an ``Engine``: DDL and SET statements plan (and so run) at once,
    queries and INSERTs start a job that is waited for. Each job is planned in the runtime mode
    asked for, and the job is checked to have run in it."""

    def __init__(self, engine):
        self.engine = engine

    def mode(self, mode: str) -> None:
        self.engine.planner.settings["execution.runtime-mode"] = mode
        # a streaming job whose bounded input comes in one micro-batch would otherwise run as one
        # batch job (planner.analysis.one_batch): these tests compare the streaming run with batch
        self.engine.planner.settings["sqlengine.bounded.batch"] = "false"

    def ddl(self, text: str) -> None:
        for stmt in parse_script(text).statements:
            outcome = self.engine.plan(stmt)
            assert outcome.kind not in (Kind.QUERY, Kind.INSERT, Kind.STATEMENT_SET), stmt.text

    def outcome(self, sql: str):
        statements = parse_script(sql).statements
        assert len(statements) == 1, sql
        return self.engine.plan(statements[0])

    def job(self, sql: str, mode: str):
        self.mode(mode)
        outcome = self.outcome(sql)
        assert outcome.analysis.streaming == (mode == "streaming"), f"planned for the wrong mode: {sql}"
        job = self.engine.start(outcome)
        job.wait()
        if job.error_detail is not None or job.status.value != "FINISHED":
            raise JobFailed(f"{mode} job {job.status.value}: {job.error_detail!r}\n{sql}")
        ran_as(job, mode)
        return job

    def rows(self, sql: str, mode: str) -> list[tuple]:
        """The final table of a SELECT (the changelog applied) in ``mode``."""
        job = self.job(sql, mode)
        assert job.result is not None
        return job.result.rows()

    def both_or_errors(self, sql: str, table: Callable[[list[tuple]], Counter] | None = None) -> dict[str, Any]:
        """Each mode's final table (made comparable by ``table``, default ``multiset``), or the
        error it raised: jobs run in threads, and each case's own test reports its failure."""
        out: dict[str, Any] = {}
        for mode in ("streaming", "batch"):
            try:
                out[mode] = (table or multiset)(self.rows(sql, mode))
            except Exception as err:
                out[mode] = err
        return out

    def both(self, sql: str) -> tuple[Counter, Counter]:
        """(streaming, batch) results of a SELECT as multisets."""
        return multiset(self.rows(sql, "streaming")), multiset(self.rows(sql, "batch"))


def run_statement(engine, sql: str):
    """Plan one statement, start its job and wait for it to end."""
    (stmt,) = parse_script(sql).statements
    job = engine.start(engine.plan(stmt))
    job.wait()
    return job


def ran_as(job, mode: str) -> None:
    """The job ran in ``mode``: a streaming job ran Spark streaming queries (they report progress,
    a batch job has none) over its bounded input; a batch job ran on Spark's batch engine."""
    if mode == "streaming":
        assert not job.batch and job.bounded, f"job {job.id} was not a bounded streaming job"
        assert job.history, f"job {job.id} ran no streaming query (no progress reported)"
    else:
        assert job.batch and not job.history, f"job {job.id} did not run in batch mode"


def read_json_dir(spark, path: Path, schema: str) -> list[tuple]:
    """The rows a filesystem sink committed (Spark's reader honours the sink's _spark_metadata log)."""
    return [tuple(r) for r in spark.read.schema(schema).json(str(path)).collect()]
