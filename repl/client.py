"""Client statements: what the shell prints for SHOW, DESCRIBE, SET, RESET, EXPLAIN, HELP and the
job statements (SHOW JOBS, DESCRIBE JOB 'id', STOP JOB 'id'). Plain text in, plain text out; the
shell decides where it goes."""

from __future__ import annotations

import datetime
import decimal
import logging
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from sqlglot import exp
from tabulate import tabulate

from planner.analysis.estimate_figures import human_bytes
from planner.dialect import nodes
from planner.statements.session import KNOWN_SETTINGS, Kind, Outcome
from repl.state_prompt import measured_vs_estimate

if TYPE_CHECKING:
    from catalog import Catalog
    from planner.analysis.analyze import Analysis
    from sqlengine.engine import Engine
    from sqlengine.jobs import Job


class ClientError(Exception):
    """A client statement that cannot be done (an unknown job id, ...): one line for the user."""


# -- values and tables ---------------------------------------------------------------------------


def _members(t: exp.DataType | None) -> list[exp.DataType | None]:
    """The types inside an ARRAY (its element), a MAP (key, value) or a ROW (its fields)."""
    if not isinstance(t, exp.DataType):
        return []
    return [m.args.get("kind") if isinstance(m, exp.ColumnDef) else m if isinstance(m, exp.DataType) else None
            for m in t.expressions]


def _struct_text(v: object, t: exp.DataType | None) -> str:
    """A ROW as Flink's client prints it, its values only: ``(Bob, 42)``; a structured OBJECT
    (OBJECT_OF) with its field names: ``(name=Bob, age=42)``."""
    fields = v.asDict()  # type: ignore[attr-defined]
    types = _members(t) + [None] * len(fields)
    named = isinstance(t, exp.DataType) and t.is_type(exp.DType.OBJECT)
    parts = (f"{k}={format_value(x, t=ft)}" if named else format_value(x, t=ft)
             for (k, x), ft in zip(fields.items(), types, strict=False))
    return "(" + ", ".join(parts) + ")"


def format_value(v: object, width: int | None = None, t: exp.DataType | None = None) -> str:
    """A value as the shell prints it; ``t``, the column's type, tells a ROW from an OBJECT."""
    if v is None:
        text = "NULL"
    elif isinstance(v, datetime.datetime):
        text = v.isoformat(sep=" ", timespec="milliseconds")
    elif isinstance(v, (datetime.date, datetime.time)):
        text = v.isoformat()
    elif isinstance(v, decimal.Decimal):
        text = str(v)
    elif isinstance(v, (bytes, bytearray)):
        text = "x'" + bytes(v).hex() + "'"
    elif isinstance(v, bool):
        text = "TRUE" if v else "FALSE"
    elif isinstance(v, float):
        text = repr(v)
    elif hasattr(v, "asDict"):
        text = _struct_text(v, t)
    elif isinstance(v, (list, tuple)):
        (element, *_) = _members(t) or [None]
        text = "[" + ", ".join(format_value(x, t=element) for x in v) + "]"
    elif isinstance(v, dict):
        key, value = (_members(t) + [None, None])[:2]
        text = "{" + ", ".join(f"{format_value(k, t=key)}={format_value(x, t=value)}" for k, x in v.items()) + "}"
    else:
        text = str(v)
    text = text.replace("\n", "\\n").replace("\t", " ")
    if width is not None and len(text) > width:
        text = text[: max(1, width - 1)] + "…"
    return text


def render_table(columns: Sequence[str], rows: Iterable[Sequence[object]], *, count: bool = True, width: int | None = None,
                 types: Sequence[exp.DataType | None] = ()) -> str:
    kinds = list(types) + [None] * (len(columns) - len(types))
    shown = [[format_value(v, width, t) for v, t in zip(row, kinds, strict=False)] for row in rows]
    if not shown:
        return "Empty set" if count else ""
    out = tabulate(shown, headers=list(columns), tablefmt="psql", disable_numparse=True)
    if count:
        out += f"\n{len(shown)} row{'s' if len(shown) != 1 else ''} in set"
    return out


# -- outcomes of planner-level statements ------------------------------------------------------


def render_outcome(outcome: Outcome, catalog: Catalog | None = None) -> str:
    """The text of a statement the planner answered (DDL, SET, SHOW, DESCRIBE, EXPLAIN, USE)."""
    if outcome.kind == Kind.HELP:
        return HELP
    if outcome.text:
        return outcome.text.rstrip("\n")
    if outcome.kind == Kind.SET and outcome.columns:
        return render_settings(outcome.rows)
    if outcome.columns:
        return render_table(outcome.columns, outcome.rows)
    return outcome.message or "OK"


def render_settings(rows: Sequence[tuple[object, ...]]) -> str:
    """SET alone: every setting in force, and the known ones still at their default (unset)."""
    shown = list(rows)
    present = {k for k, _v in shown}
    for key in KNOWN_SETTINGS:
        if key not in present:
            shown.append((key, "(not set)"))
    shown.sort()
    return render_table(("key", "value"), shown, count=False)


# -- jobs ----------------------------------------------------------------------------------------


def _clock(ts: float | None) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts)) if ts else "-"


def jobs_table(jobs: Sequence[Job]) -> str:
    if not jobs:
        return "No jobs. INSERT INTO and statement sets run as jobs; SHOW JOBS lists them."
    rows = []
    for j in sorted(jobs, key=lambda j: j.started_at):
        rows.append(
            (
                j.id,
                j.name,
                j.kind,
                j.status.value,
                _clock(j.started_at),
                f"{j.rows_per_second():.0f}",
                f"{j.state_rows()} rows / {human_bytes(j.state_bytes())}",
                _runs_as(j),
            )
        )
    return render_table(("job id", "name", "kind", "status", "started", "rows/s", "state", "operators"), rows, count=False)


def _runs_as(job: Job) -> str:
    """The job's stateful operators in a word: how many run natively, how many as changelog
    operators."""
    if job.batch:
        return "batch"
    changelog = sum(1 for _, how in job.operators if how != "native")
    native = len(job.operators) - changelog
    parts = [f"{native} native"] if native else []
    parts += [f"{changelog} changelog"] if changelog else []
    return ", ".join(parts) or "stateless"


def find_job(jobs: Sequence[Job], ref: str) -> Job:
    """The job whose id (or a unique prefix of it, or its name) is ``ref``."""
    ref = ref.strip()
    exact = [j for j in jobs if j.id == ref or j.name == ref]
    if len(exact) == 1:
        return exact[0]
    # a 'pipeline.name' run again names every run: the one still running is meant
    running = [j for j in exact if not j.done]
    if len(running) == 1:
        return running[0]
    if len(exact) > 1:
        raise ClientError(f"'{ref}' names {len(exact)} jobs ({', '.join(j.id for j in exact)}); give the id")
    prefix = [j for j in jobs if ref and j.id.startswith(ref)]
    if len(prefix) == 1:
        return prefix[0]
    if len(prefix) > 1:
        raise ClientError(f"'{ref}' names {len(prefix)} jobs ({', '.join(j.id for j in prefix)}); give more of the id")
    known = ", ".join(j.id for j in jobs) or "none"
    raise ClientError(f"No job '{ref}' (jobs: {known}; SHOW JOBS lists them)")


def show_state(engine: Engine, ref: str) -> str:
    """SHOW STATE 'ref': the state of a job of this session (id, id prefix or name), or of the
    checkpoint of that name under the home (a job of an earlier session)."""
    from sqlengine.state_report import COLUMNS, read_state

    try:
        job = find_job(engine.job_list(), ref)
        checkpoint, what = job.checkpoint, f"Job {job.id} ({job.name})"
    except ClientError as err:
        from sqlengine import checkpoint_root

        try:
            root = checkpoint_root.root(engine.planner.settings, engine.home, remote=engine.remote is not None)
            checkpoint, what = root / ref.strip(), f"Checkpoint '{ref.strip()}'"
            found = bool(ref.strip()) and checkpoint.is_dir()
            kept = [] if found or not root.is_dir() else sorted(p.name for p in root.iterdir() if p.is_dir())
        except (OSError, ValueError) as unreachable:  # NotLocal, or a file system that did not answer
            raise ClientError(f"{err}; {unreachable}") from None
        if not found:
            shown = ", ".join(kept[:10]) + (", ..." if len(kept) > 10 else "") if kept else "none"
            raise ClientError(f"{err}; no checkpoint '{ref.strip()}' under {root} either (checkpoints: {shown})") from None
    try:
        report = read_state(engine.spark, checkpoint)
    except Exception as err:  # Spark's reader failed: one line here, the trace in the log
        from sqlengine.errors import describe

        logging.getLogger("sqlengine.state").exception("SHOW STATE %s", ref)
        raise ClientError(f"Reading the state of {checkpoint} failed: {describe(err)}") from None
    head = f"{what}: checkpoint {checkpoint}, state backend '{report.backend}'"
    if not report.operators:
        return f"{head}\nNo state: the job has no stateful operator, or has not committed a batch yet."
    return f"{head}\n{render_table(COLUMNS, [o.row() for o in report.operators], count=False)}"


def job_ref(outcome: Outcome) -> str:
    """The job id written in DESCRIBE JOB 'id' / STOP JOB 'id' / SHOW STATE 'id'."""
    tree = outcome.tree
    target = tree.args.get("target") if isinstance(tree, nodes.ShowStatement) else tree.this
    return target.name if isinstance(target, exp.Expr) else ""


def _backend(job: Job) -> str:
    """The state backend the job's state is in: its checkpoint's, or the one it started with."""
    from sqlengine import state_backend

    found = state_backend.in_checkpoint(job.checkpoint / "q0")
    if found is None and job.spark is not None:
        found = state_backend.in_force(job.spark)
    return state_backend.name_of(found)


def describe_job(job: Job, analysis: Analysis | None = None) -> str:
    from sqlengine.errors import describe

    lines = [
        f"Job {job.id} ({job.name})",
        f"  kind:     {job.kind}{' (batch: its bounded input comes in one micro-batch)' if job.one_batch else ' (batch)' if job.batch else ' (bounded input: ends by itself)' if job.bounded else ''}",
        f"  status:   {job.status.value}" + (f" — {describe(job.error_detail)}" if job.error_detail is not None and job.status.value == "FAILED" else ""),
        f"  started:  {_clock(job.started_at)}" + (f", ended {_clock(job.ended_at)}" if job.ended_at else ""),
        f"  rows/s:   {job.rows_per_second():.0f}",
        f"  state:    {job.state_rows()} rows, {human_bytes(job.state_bytes())}",
        f"  checkpoint: {job.checkpoint} (state backend '{_backend(job)}'; SHOW STATE '{job.id}' reads it)",
        "  sql:",
        *("    " + ln for ln in job.sql.strip().splitlines()),
    ]
    if job.operators:
        lines.append("  operators:")
        lines.extend(f"    {op}: {how}" for op, how in job.operators)
    latest = job.latest
    if latest:
        lines.append("  latest progress:")
        for query, snap in sorted(latest.items()):
            lines.append(f"    {query}: {snap.line()}")
    state = measured_vs_estimate(latest, analysis)
    if state:
        lines.append("  state per operator (measured by Spark — estimated before the start):")
        lines.extend("    " + ln for ln in state)
    elif analysis is not None and analysis.state:
        from repl.state_prompt import estimate_text

        lines.append("  state per operator (estimated; Spark has not reported yet):")
        lines.extend(f"    {s.operator}: {s.verdict.value}, est. {estimate_text(analysis, s)}" for s in analysis.state)
    return "\n".join(lines)


HELP = """\
Statements end with `;` (Enter on an unfinished statement starts a new line).

Queries and jobs
  SELECT ...;                      a continuous query: its result updates live (q or Ctrl-C stops it)
      SELECT item, window_start, COUNT(*) AS c
      FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      GROUP BY item, window_start, window_end;
  INSERT INTO sink SELECT ...;     runs in the background as a job
  EXECUTE STATEMENT SET BEGIN INSERT INTO a ...; INSERT INTO b ...; END;
  SHOW JOBS;                       jobs: id, name, status, started, rows/s, state size
  DESCRIBE JOB 'id';               a job's SQL, progress and state per operator vs the estimate
  STOP JOB 'id';                   stop cleanly; the checkpoint stays, the same INSERT resumes it
  STOP JOB 'id' WITH SAVEPOINT;    stop, and copy the checkpoint into a savepoint (its path is shown)
  SHOW STATE 'id';                 what a job (or a checkpoint of that name) keeps: per operator, entries and bytes
  EXPLAIN SELECT ...;              plan, state per operator (bounded?) and advice

Catalog
  CREATE TABLE bids (ts TIMESTAMP_LTZ(3), item STRING, price BIGINT,
      WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/data/bids', 'format' = 'json',
        'source.monitor-interval' = '1 s');
  CREATE VIEW v AS SELECT ...;     DROP TABLE t;   ALTER TABLE t RENAME TO u;
  SHOW TABLES;  SHOW VIEWS;  SHOW FUNCTIONS;  SHOW CREATE TABLE t;  DESCRIBE t;

Settings
  SET;                             every setting
  SET 'sql-client.execution.result-mode' = 'table';      table | changelog | tableau
  SET 'sql-client.state-warnings' = 'warn';              ignore | warn | error (unbounded state)
  SET 'execution.runtime-mode' = 'batch';                streaming | batch
  SET 'table.exec.state.ttl' = '1 h';                    RESET 'key';  RESET;
  SET 'execution.savepoint.path' = '<path>';             the next INSERTs start from a savepoint

Shell
  HELP;  CLEAR;  QUIT; (or EXIT;, or Ctrl-D)
  Tab completes, Ctrl-R searches the history, Ctrl-C clears the line, Alt-Enter adds a new line.
"""
