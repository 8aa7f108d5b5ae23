"""``sqlengine run FILE.sql``: statements in order. DDL goes into the catalog; INSERTs and
statement sets run as streaming jobs (a job over bounded inputs ends by itself; unbounded ones
run until Ctrl-C); each SELECT's result is printed (``--format tableau|json|csv``).

Informational lines and progress go to stderr, results to stdout, so ``--format json`` output can
be piped into another program. Exit status: 0 success, 1 a job failed, 2 invalid SQL or usage,
130 interrupted (jobs stopped cleanly; re-running the file resumes them from their checkpoints),
141 the output was closed by its reader (``| head``; jobs stopped the same way, nothing printed).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import decimal
import io
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from sqlglot import exp

from planner.dialect import nodes
from planner.errors import SqlError
from planner.statements.script import Statement, parse_script
from planner.statements.session import Kind, Outcome
from repl.client import ClientError, format_value
from repl.options import pairs
from repl.pipes import OutputClosed, is_closed_output

if TYPE_CHECKING:
    from sqlengine.engine import Engine
    from sqlengine.jobs import Job

EXIT_OK, EXIT_FAILED, EXIT_SQL, EXIT_INTERRUPTED = 0, 1, 2, 130
PROGRESS_EVERY = 5.0  # seconds between progress lines on stderr


def info(text: str) -> None:
    print(f"[INFO] {text}", file=sys.stderr, flush=True)


def error(text: str) -> None:
    print(f"[ERROR] {text}", file=sys.stderr, flush=True)


# -- result printing -----------------------------------------------------------------------------


def _plain(v: object) -> object:
    if isinstance(v, datetime.datetime):
        return v.isoformat(sep=" ", timespec="milliseconds")
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if hasattr(v, "asDict"):
        return {k: _plain(x) for k, x in v.asDict().items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _nested(v: object) -> bool:
    return isinstance(v, (list, tuple, dict)) or hasattr(v, "asDict")


def print_rows(columns: tuple[str, ...], rows: Sequence[tuple[object, ...]], fmt: str, out: TextIO = sys.stdout,
               types: Sequence[object] = ()) -> None:
    """Rows as JSON lines, CSV or a table; ``types``, the columns' planned types, tell a ROW
    (printed as its values) from an OBJECT (its fields too) in the table."""
    if fmt == "json":
        for row in rows:
            out.write(json.dumps({c: _plain(v) for c, v in zip(columns, row, strict=True)}, ensure_ascii=False) + "\n")
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if v is None else _plain(v) for v in row])
        out.write(buf.getvalue())
    else:
        from tabulate import tabulate

        # nested values as the shell shows them, Flink's way ([1, 2], {k=1}, (1, x)), not as Python's
        kinds = [t if isinstance(t, exp.DataType) else None for t in types] + [None] * len(columns)
        shown = [["NULL" if v is None else format_value(v, t=kinds[i]) if _nested(v) else _plain(v) for i, v in enumerate(row)]
                 for row in rows]
        # a DECIMAL keeps its scale (3.000000, as Flink prints it), which tabulate's numbers drop
        exact = sorted({i for row in rows for i, v in enumerate(row) if isinstance(v, decimal.Decimal)})
        out.write(tabulate(shown, headers=list(columns), tablefmt="psql", disable_numparse=exact) + "\n")
        out.write(f"{len(rows)} row{'s' if len(rows) != 1 else ''} in set\n")
    out.flush()


# -- running -------------------------------------------------------------------------------------


class Runner:
    def __init__(self, engine: Engine, fmt: str, changelog: bool = False) -> None:
        self.engine = engine
        self.fmt = fmt
        self.changelog = changelog  # print each SELECT's changelog (op column first), not its final table
        self.failed = False
        self.background: list[Job] = []  # unbounded jobs left running
        self.interrupted: list[Job] = []  # jobs Ctrl-C stopped while we waited on them
        self._printed: set[tuple[str, str, int, str]] = set()  # progress lines printed: (job, query, batch, time)

    def run_script(self, text: str, path: str) -> int:
        script = parse_script(text, path)
        if script.errors:
            for e in script.errors:
                print(e.render(), file=sys.stderr)
            n = len(script.errors)
            error(f"{path}: {n} statement{'s do' if n != 1 else ' does'} not parse; nothing was run")
            return EXIT_SQL
        for stmt in script.statements:
            code = self.run_statement(stmt)
            if code != EXIT_OK:
                return code
        return EXIT_OK

    def run_statement(self, stmt: Statement) -> int:
        try:
            outcome = self.engine.plan(stmt)
        except SqlError as e:
            print(e.render(), file=sys.stderr)
            return EXIT_SQL
        kind = outcome.kind
        if kind in (Kind.QUERY, Kind.INSERT, Kind.STATEMENT_SET):
            if outcome.message:
                info(outcome.message)
            return self.run_job(outcome)
        if kind == Kind.QUIT:
            return EXIT_OK
        if kind == Kind.JOBS:
            return self.job_statement(outcome)
        if outcome.text:
            sys.stdout.write(outcome.text if outcome.text.endswith("\n") else outcome.text + "\n")
        elif outcome.columns:
            print_rows(outcome.columns, list(outcome.rows), self.fmt if self.fmt == "tableau" else "tableau", out=sys.stderr if self.fmt != "tableau" else sys.stdout)
        elif outcome.message:
            info(outcome.message)
        return EXIT_OK

    def run_job(self, outcome: Outcome) -> int:
        for state in outcome.analysis.state if outcome.analysis else ():
            info(f"State: {state}")  # what each stateful operator keeps, before the job starts
        for d in outcome.analysis.diagnostics if outcome.analysis else ():
            if d.severity.value in ("error", "warning"):
                print(f"[{d.severity.value.upper()}] {d.code} {d.message}", file=sys.stderr)
        try:
            job = self.engine.start(outcome)
        except SqlError as e:
            print(e.render(), file=sys.stderr)
            return EXIT_SQL
        for note in job.notes:
            info(f"{note}.")
        what = "SELECT" if outcome.kind == Kind.QUERY else outcome.statement.text.split()[0].upper()
        if job.batch:
            mode = "batch, runs to completion"
        else:
            mode = "bounded, runs to the end of its input" if job.bounded else "unbounded, runs until Ctrl-C"
        info(f"Job {job.id} started ({what}; {mode}); progress in {job.log_path}")
        if not job.ends_by_itself and outcome.kind != Kind.QUERY:
            self.background.append(job)
            return self.watch_startup(job)
        try:
            self.wait(job)
        except KeyboardInterrupt:
            # an unbounded SELECT ends with Ctrl-C: stop it cleanly and print the result so far
            job.stop()
            job.wait(30)
            self.interrupted.append(job)
            if job.result is not None:
                self.print_result(job)
            raise
        return self.finish(job)

    def watch_startup(self, job: Job) -> int:
        """An unbounded INSERT keeps running; report right away if it fails to start."""
        job.wait(3)
        if job.error_detail is not None:
            return self.finish(job)
        return EXIT_OK

    def wait(self, job: Job) -> None:
        last = 0.0
        while not job.wait(0.5):
            if time.time() - last >= PROGRESS_EVERY:
                last = time.time()
                self.progress(job)

    def progress(self, job: Job) -> None:
        """The latest batch of each query, unless it was printed already (a long batch)."""
        for snap in job.latest.values():
            key = (job.id, snap.query, snap.batch_id, snap.timestamp)
            if key not in self._printed:
                self._printed.add(key)
                print(f"[{job.id}] {snap.line()}", file=sys.stderr, flush=True)

    def finish(self, job: Job) -> int:
        from sqlengine.errors import describe
        from sqlengine.jobs import Status

        if job.status == Status.FAILED:
            # a failed job has its error_detail (sqlengine.jobs); the fallback is the shell's
            why = describe(job.error_detail) if job.error_detail is not None else job.error or "unknown error"
            error(f"Job {job.id} failed: {why}")
            self.failed = True
            return EXIT_FAILED
        if job.already_complete:
            info(f"Job {job.id}: this statement already ran to the end of its input (checkpoint {job.checkpoint}); nothing new to do")
            return EXIT_OK
        if job.result is not None:
            self.print_result(job)
        states = [f"{o.name} {o.rows} rows" for s in job.latest.values() for o in s.operators]
        info(f"Job {job.id} {job.status.value.lower()}" + (f"; final state: {', '.join(states)}" if states else ""))
        return EXIT_OK

    def print_result(self, job: Job) -> None:
        result = job.result
        assert result is not None
        if not self.changelog:
            print_rows(result.columns, result.rows(), self.fmt, types=result.types)
            return
        changes, total, dropped = result.changes_since(0)
        if dropped:
            info(f"the first {dropped} of {total} changes are not kept (at most {result.max_changes}); the last {len(changes)} follow")
        print_rows(("op", *result.columns), [(str(c.kind), *c.row) for c in changes], self.fmt, types=(None, *result.types))

    def wait_background(self) -> int:
        running = [j for j in self.background if not j.done]
        if not running:
            return EXIT_OK
        info(f"{len(running)} job{'s' if len(running) != 1 else ''} running; Ctrl-C stops them (checkpoints are kept)")
        code = EXIT_OK
        for job in running:
            self.wait(job)
            code = max(code, self.finish(job))
        return code

    def print_jobs(self) -> None:
        rows = [
            (j.id, j.name, j.status.value, time.strftime("%H:%M:%S", time.localtime(j.started_at)), f"{j.rows_per_second():.0f}", j.state_rows())
            for j in self.engine.job_list()
        ]
        print_rows(("job id", "name", "status", "started", "rows/s", "state rows"), rows, "tableau", out=sys.stderr if self.fmt != "tableau" else sys.stdout)

    def job_statement(self, outcome: Outcome) -> int:
        """SHOW JOBS, DESCRIBE JOB, STOP JOB [WITH SAVEPOINT]: a job is named by its id or, more
        usefully in a file, by its 'pipeline.name'."""
        from repl.job_statements import answer

        if isinstance(outcome.tree, nodes.ShowStatement) and outcome.tree.name.upper() != "STATE":
            self.print_jobs()
            return EXIT_OK

        def stop(job: Job, whole_batches: bool) -> bool:
            job.stop(whole_batches=whole_batches)
            job.wait(60)
            return True  # waited: whether it has stopped is the job's status

        try:
            lines = answer(self.engine, outcome, stop)
        except ClientError as err:
            error(str(err))
            return EXIT_SQL
        for line in lines:
            if line.info:
                info(line.text)
            else:
                print(line.text, file=sys.stdout if self.fmt == "tableau" else sys.stderr, flush=True)
        return EXIT_OK


def main(args: argparse.Namespace) -> int:
    from catalog.home import resolve_home
    from sqlengine.engine import Engine

    home = resolve_home(getattr(args, "home", None))
    from repl.logs import setup_logging

    setup_logging(home)
    try:
        settings = pairs(getattr(args, "set", None), "--set")
        conf = pairs(getattr(args, "conf", None), "--conf")
        variables = pairs(getattr(args, "define", None), "--define")
    except ValueError as err:
        error(str(err))
        return EXIT_SQL
    if getattr(args, "bounded", False):
        settings["execution.runtime-mode"] = "batch"
    try:
        from sqlengine import checkpoint_root

        remote = bool(getattr(args, "remote", None))
        settings.update(checkpoint_root.setting(getattr(args, "checkpoint_root", None), remote=remote))
    except ValueError as err:
        error(str(err))
        return EXIT_SQL
    fmt = getattr(args, "format", None) or "tableau"
    files = list(getattr(args, "init", None) or []) + list(args.files)
    texts = []
    for f in files:
        try:
            texts.append((Path(f).read_text(), f))
        except (OSError, UnicodeDecodeError) as err:
            error(f"{f}: cannot read: {getattr(err, 'strerror', None) or err}")
            return EXIT_SQL
    try:
        from sqlengine.java import JavaMissing, check_java

        if not getattr(args, "remote", None):  # over Spark Connect the JVM is the server's
            check_java()
    except JavaMissing as err:
        error(str(err))
        return EXIT_FAILED
    from sqlengine import class_cache

    class_cache.may_write()  # this process waits for its JVM at the end (_finish_class_cache)
    engine = Engine(home, master=getattr(args, "master", None), remote=getattr(args, "remote", None),
                    conf=conf, variables=variables, settings={k: v for k, v in settings.items() if not k.startswith("spark.")})
    engine.conf.update({k: v for k, v in settings.items() if k.startswith("spark.")})
    runner = Runner(engine, fmt, changelog=getattr(args, "changelog", False))
    # the changes are printed: a job that ends keeps its streaming run, whatever the script SETs
    engine.planner.results_as_changes = runner.changelog
    ended = False  # on its own, not cut short by Ctrl-C or a closed output
    try:
        for text, path in texts:
            code = runner.run_script(text, path)
            if code != EXIT_OK:
                engine.stop_all()
                ended = True
                return code
        code = runner.wait_background()
        ended = True
        return code
    except KeyboardInterrupt:
        running = [j for j in engine.job_list() if not j.done] + runner.interrupted
        engine.stop_all()
        info(f"Interrupted: stopped {len(running)} job{'s' if len(running) != 1 else ''}; checkpoints are kept, re-run to resume")
        return EXIT_INTERRUPTED
    except (OSError, OutputClosed) as err:
        if not is_closed_output(err):
            raise
        engine.stop_all()  # the reader of our output has gone (`| head`): stop as for Ctrl-C, quietly
        raise OutputClosed from None
    finally:
        engine.cleanup_tmp()
        _finish_class_cache(ended)


def _finish_class_cache(ended: bool) -> None:
    """The run whose JVM writes the class cache waits for it when the run ended on its own, so
    that later runs start faster (sqlengine.class_cache); one cut short (Ctrl-C) drops it and
    leaves at once. Every other run leaves as before."""
    from sqlengine import class_cache

    if class_cache.writing():
        from sqlengine.session import stop_session

        stop_session(keep_class_cache=ended)
