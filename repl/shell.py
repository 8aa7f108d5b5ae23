"""``sqlengine``: the interactive shell.

The prompt comes up before Spark: nothing heavy is imported at start (no pyspark), and Spark is
started in the background once the prompt is on screen. A statement that needs Spark before it is
up waits behind a spinner that Ctrl-C cancels.

Statements run at `;` (``repl.buffer``). DDL, SET, SHOW, DESCRIBE, EXPLAIN and HELP are answered at
once (``repl.client``). A SELECT first shows its state analysis (``repl.state_prompt``), then its
live result in the result mode in force (``repl.views``). INSERT INTO and statement sets run in the
background as jobs (SHOW JOBS, DESCRIBE JOB 'id', STOP JOB 'id'); a job that ends or fails while
the prompt waits is announced above it.

Leaving the shell (QUIT; or Ctrl-D) with jobs running asks first, then stops them cleanly: Spark
finishes the micro-batch in flight and the checkpoint stays, so running the same INSERT again
(same statement, or same 'pipeline.name') resumes where it stopped.

``sqlengine -i init.sql`` runs a file before the prompt; ``sqlengine -f file.sql`` runs a file
without a prompt (SELECT results printed as tableau, jobs waited for) and exits non-zero on error.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from planner.errors import SqlError
from planner.statements.script import Statement
from planner.statements.session import Kind, Outcome
from repl.buffer import SHELL_NAME, statements
from repl.client import HELP, ClientError, render_outcome
from repl.state_prompt import SETTING as STATE_WARNINGS
from repl.state_prompt import decide
from repl.terminal import Terminal
from repl.toolbar import SparkStatus

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.output import Output

    from planner.analysis.analyze import Analysis
    from sqlengine.engine import Engine
    from sqlengine.jobs import Job
    from sqlengine.warm_up import WarmUp

log = logging.getLogger("sqlengine.shell")

EXIT_OK, EXIT_FAILED, EXIT_SQL, EXIT_INTERRUPTED = 0, 1, 2, 130


class Shell:
    def __init__(self, engine: Engine, term: Terminal, *, history: Path | None = None, start_spark: bool = True,
                 warm_up: bool = True) -> None:
        self.engine = engine
        self.term = term
        self.history = history
        self.start_spark = start_spark
        self.spark = SparkStatus()
        if engine.spark_ready:
            self.spark.state = "ready"
        self.analyses: dict[str, Analysis | None] = {}  # job id -> the analysis it started with
        self._announced: dict[str, str] = {}  # job id -> last status announced
        self._warned: set[tuple[str, str]] = set()  # (job id, operator) warned of state past its estimate
        self.quit_requested = False
        self.session: PromptSession[str] | None = None
        self.prompts = 0  # prompts shown so far (tests wait for the next one)
        self.warms_up = warm_up
        self.warm_up: WarmUp | None = None  # the JVM's warm-up query, run once Spark is up (sqlengine.warm_up)
        self.job_failed = False  # the last failure was Spark's (exit 1 for -f), not the SQL's (2)

    # -- Spark -------------------------------------------------------------------------------

    def ensure_spark_starting(self) -> None:
        if self.spark.state != "off":
            return
        self.spark.state = "starting"
        if self.warms_up:
            from sqlengine.warm_up import WarmUp

            self.warm_up = WarmUp(self.engine.home)  # made now: a job started before Spark is up stops it
        self.engine.start_spark_in_background()
        threading.Thread(target=self._watch_spark, name="spark-watch", daemon=True).start()

    def _watch_spark(self) -> None:
        try:
            self.engine.spark  # noqa: B018 - waits for the background start
            self.spark.state = "ready"
        except BaseException as err:
            from sqlengine.errors import describe

            log.error("Spark did not start", exc_info=err)
            self.spark.error = describe(err)
            self.spark.state = "failed"
            return
        from sqlengine.spark_connect import is_connect

        if self.warm_up is not None and not is_connect(self.engine.spark):  # a Connect server's JVM is not ours to warm
            self.warm_up.run(self.engine.spark)

    def need_spark(self) -> bool:
        """Spark is up (True), or the wait was cancelled or Spark failed (False, said so)."""
        if self.engine.spark_ready:
            self.spark.state = "ready"
            return True
        self.ensure_spark_starting()
        waited = self.term.wait(lambda: self.engine.spark, "Starting Spark…")
        if not waited.done:
            self.term.print("Cancelled; Spark keeps starting in the background.", "dim")
            return False
        if waited.error is not None:
            from sqlengine.errors import describe

            self.term.error(f"[ERROR] Spark is not available: {describe(waited.error)}")
            return False
        return True

    # -- the prompt --------------------------------------------------------------------------

    def _prompt_session(self) -> PromptSession[str]:
        from repl.prompt import prompt_session

        return prompt_session(self)

    def _on_prompt(self) -> None:
        """Runs once the prompt is on screen: start Spark, watch the jobs."""
        if self.start_spark:
            self.ensure_spark_starting()
        assert self.session is not None  # the pre_run of the session's own prompt (run)
        app = self.session.app
        app.create_background_task(self._announce_jobs_while_waiting())

    async def _announce_jobs_while_waiting(self) -> None:
        from prompt_toolkit.application import run_in_terminal

        try:
            while True:
                await asyncio.sleep(0.5)
                notes = self.job_notes()
                if notes:
                    await run_in_terminal(partial(self.term.lines, notes))
        except asyncio.CancelledError:
            raise
        except Exception:  # never a trace on the user's screen
            log.exception("job announcements")

    def run(self) -> int:
        """The interactive loop; returns the exit status."""
        session = self.session = self._prompt_session()
        self.term.print("sqlengine shell — statements end with `;`. HELP; lists what you can do, QUIT; leaves.", "dim")
        failures = 0
        while True:
            self.term.lines(self.job_notes())
            self.prompts += 1
            try:
                # no prompt_toolkit handler: it would print a traceback and wait for Enter
                text = session.prompt(pre_run=self._on_prompt, set_exception_handler=False)
                failures = 0
            except KeyboardInterrupt:
                continue  # Ctrl-C clears the line
            except EOFError:
                if self.confirm_exit():
                    break
                continue
            except Exception as err:  # a defect in the prompt itself: log it, keep the session
                log.exception("prompt failed")
                failures += 1
                self.term.error(f"[ERROR] Internal error in the prompt: {type(err).__name__} (details in the log)")
                if failures >= 3:
                    break
                continue
            if not text.strip():
                continue
            try:
                self.execute_text(text)
            except KeyboardInterrupt:
                self.term.print("Cancelled.", "dim")
            if self.quit_requested:
                self.quit_requested = False
                if self.confirm_exit():
                    break
        self.shutdown()
        return EXIT_OK

    # -- statements --------------------------------------------------------------------------

    def execute_text(self, text: str, path: str | None = SHELL_NAME) -> bool:
        """Run the statements of ``text`` in order, stopping at the first error (False)."""
        items = statements(text, path)
        for i, item in enumerate(items):
            if isinstance(item, SqlError):
                self.show_sql_error(item)
                ok = False
            else:
                ok = self.execute(item)
            if not ok:
                rest = len(items) - i - 1
                if rest:
                    self.term.error(f"[ERROR] {rest} statement{'s' if rest != 1 else ''} after it not run.")
                return False
            if self.quit_requested:
                return True
        return True

    def show_sql_error(self, err: SqlError) -> None:
        color = self.term.interactive and _isatty(self.term.err_output)
        self.term.raw(err.render(color=color))

    def execute(self, stmt: Statement) -> bool:
        """Run one statement; False when it failed (the error is printed)."""
        self.job_failed = False
        try:
            outcome = self.engine.plan(stmt)
            return self.dispatch(outcome)
        except SqlError as err:
            self.show_sql_error(err)
        except ClientError as err:
            self.term.error(f"[ERROR] {err}")
        except KeyboardInterrupt:
            raise
        except Exception as err:  # a defect: one line here, the trace in the log
            log.exception("statement failed: %s", stmt.text)
            self.term.error(f"[ERROR] Internal error: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''} (details in the log)")
        return False

    def dispatch(self, outcome: Outcome) -> bool:
        kind = outcome.kind
        if kind in (Kind.QUERY, Kind.INSERT, Kind.STATEMENT_SET):
            return self.run_job(outcome)
        if kind == Kind.JOBS:
            return self.job_statement(outcome)
        if kind == Kind.QUIT:
            self.quit_requested = True
            return True
        if kind == Kind.CLEAR:
            if self.term.interactive:
                out = self.term.output
                out.erase_screen()
                out.cursor_goto(0, 0)
                out.flush()
            return True
        if kind == Kind.HELP:
            self.term.print(HELP.rstrip())
            return True
        text = render_outcome(outcome)
        if outcome.columns or outcome.text:
            self.term.print(text)
        else:
            self.term.print(f"[INFO] {text}", "info")
        return True

    # -- jobs --------------------------------------------------------------------------------

    def _start_job(self, outcome: Outcome) -> Job:
        if self.warm_up is not None:  # the user's job first: the two on the same cores would slow it
            self.warm_up.stop()
        return self.engine.start(outcome)

    def run_job(self, outcome: Outcome) -> bool:
        settings = self.engine.planner.settings
        if self.engine.streaming:
            ask = self.term.ask if self.term.interactive else None
            if not decide(outcome.analysis, settings.get(STATE_WARNINGS, "warn"), self.term.lines, ask):
                return settings.get(STATE_WARNINGS, "warn") != "error"
        if outcome.message:
            self.term.print(f"[INFO] {outcome.message}", "info")
        if not self.need_spark():
            return False
        waited = self.term.wait(lambda: self._start_job(outcome), "Starting the job…", on_abandon=lambda job: job.stop())
        if not waited.done:
            self.term.print("Cancelled.", "dim")
            return True
        if waited.error is not None:
            return self._start_failed(waited.error)
        job = waited.value
        self.analyses[job.id] = outcome.analysis
        if outcome.kind == Kind.QUERY:
            return self.show_query(job, outcome)
        self._announced[job.id] = job.status.value
        for note in job.notes:
            self.term.print(f"[INFO] {note}.", "info")
        what = "statement set" if outcome.kind == Kind.STATEMENT_SET else "INSERT"
        self.term.print(f"[INFO] Job {job.id} submitted ({what} '{job.name}'); SHOW JOBS lists it, STOP JOB '{job.id}' stops it.", "info")
        return True

    def _start_failed(self, err: BaseException) -> bool:
        if isinstance(err, SqlError):
            self.show_sql_error(err)
            return False
        from sqlengine.errors import describe

        self.job_failed = True
        log.error("job did not start", exc_info=err)
        self.term.error(f"[ERROR] {describe(err)}")
        return False

    def show_query(self, job: Job, outcome: Outcome) -> bool:
        from repl.views import show_result
        from repl.views.live import result_of

        fields = outcome.plans[0].fields if outcome.plans else ()
        try:
            stopped = show_result(self.term, job, outcome.analysis, dict(self.engine.planner.settings), fields)
        finally:
            if not job.done:
                job.stop()
                self.term.wait(lambda: job.wait(60), "Stopping the query…")
        if job.status.value == "FAILED":
            from sqlengine.errors import describe

            self.term.error(f"[ERROR] The query failed: {describe(job.error_detail) if job.error_detail else job.error}")
            self.job_failed = True
            return False
        mode = self.engine.planner.settings.get("sql-client.execution.result-mode", "table")
        if mode == "table" and self.term.interactive:
            how = "stopped" if stopped else job.status.value.lower()
            rows = len(result_of(job))
            self.term.print(f"[INFO] Query {how}: {rows} row{'s' if rows != 1 else ''} in its result (job {job.id}).", "info")
        return True

    def job_statement(self, outcome: Outcome) -> bool:
        from repl.job_statements import answer

        def stop(job: Job, whole_batches: bool) -> bool:
            job.stop(whole_batches=whole_batches)
            if not self.term.wait(lambda: job.wait(60), f"Stopping job {job.id}…").done:
                return False
            self._announced[job.id] = job.status.value
            return True

        for line in answer(self.engine, outcome, stop, self.analyses):
            if line.info:
                self.term.print(f"[INFO] {line.text}", "info")
            else:
                self.term.print(line.text)
        return True

    def job_notes(self) -> list[tuple[str, str]]:
        """Lines about background jobs: those that ended since the last look, and (once per
        operator) a running job whose state passed twice its estimate."""
        from repl.state_prompt import estimate_warnings
        from sqlengine.errors import describe

        notes = []
        for job in self.engine.job_list():
            if job.kind != "select" and not job.done:
                # once per operator: its measured state passed twice the estimate
                for key, warning in estimate_warnings(job.latest, self.analyses.get(job.id)):
                    if (job.id, key) not in self._warned:
                        self._warned.add((job.id, key))
                        notes.append(("warning", f"[WARNING] Job {job.id}: {warning}."))
            if job.kind == "select" or not job.done or self._announced.get(job.id) == job.status.value:
                continue
            self._announced[job.id] = job.status.value
            if job.status.value == "FAILED":
                why = describe(job.error_detail) if job.error_detail is not None else job.error or "unknown error"
                notes.append(("error", f"[ERROR] Job {job.id} failed: {why}"))
            else:
                notes.append(("info", f"[INFO] Job {job.id} {job.status.value.lower()}."))
        return notes

    # -- leaving -----------------------------------------------------------------------------

    def running_jobs(self) -> list[Job]:
        return [j for j in self.engine.job_list() if not j.done]

    def confirm_exit(self) -> bool:
        running = self.running_jobs()
        if not running or not self.term.interactive:
            return True
        ids = ", ".join(j.id for j in running)
        n = len(running)
        them, their = ("them", "Their checkpoints are") if n != 1 else ("it", "Its checkpoint is")
        question = f"{n} job{'s are' if n != 1 else ' is'} still running ({ids}). Stop {them} and quit? {their} kept. [y/N] "
        if self.term.ask(question):
            return True
        self.term.print("Not quitting; the jobs keep running.", "dim")
        return False

    def shutdown(self) -> None:
        if self.warm_up is not None:
            self.warm_up.stop()
        running = self.running_jobs()
        if running:
            n = len(running)
            self.term.print(f"Stopping {n} job{'s' if n != 1 else ''} (checkpoints are kept; the same statement resumes them)…", "dim")
            try:
                self.engine.stop_all()
            except KeyboardInterrupt:
                pass
        try:
            self.engine.cleanup_tmp()
        except Exception:
            log.debug("cleanup", exc_info=True)

    # -- files -------------------------------------------------------------------------------

    def run_file(self, path: str) -> int:
        """Run a file's statements in order; stop at the first error (exit status 2 for bad SQL, 1
        for a job that failed or did not start)."""
        try:
            text = Path(path).read_text()
        except (OSError, UnicodeDecodeError) as err:
            self.term.error(f"[ERROR] {path}: cannot read: {getattr(err, 'strerror', None) or err}")
            return EXIT_SQL
        try:
            ok = self.execute_text(text, path)
        except KeyboardInterrupt:
            self.term.error("[ERROR] Interrupted.")
            return EXIT_INTERRUPTED
        return EXIT_OK if ok else EXIT_FAILED if self.job_failed else EXIT_SQL

    def wait_for_jobs(self) -> int:
        """After ``-f``: wait for the jobs still running (Ctrl-C stops them; checkpoints are kept)."""
        running = self.running_jobs()
        if running:
            n = len(running)
            self.term.lines([("dim", f"{n} job{'s' if n != 1 else ''} running; waiting for {'them' if n != 1 else 'it'} to end (Ctrl-C stops them, checkpoints are kept).")], err=True)
        try:
            for job in running:
                while not job.wait(0.5):
                    pass
        except KeyboardInterrupt:
            self.shutdown()
            return EXIT_INTERRUPTED
        notes = self.job_notes()
        self.term.lines(notes, err=True)
        return EXIT_FAILED if any(cls == "error" for cls, _t in notes) else EXIT_OK


def _isatty(output: Output) -> bool:
    stream = getattr(output, "stdout", None)
    try:
        return bool(stream is not None and stream.isatty())
    except Exception:
        return False
