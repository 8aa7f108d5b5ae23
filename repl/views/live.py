"""Printing a running query's output line by line, with a live status line under it.

In a terminal a one-line application shows the status (rows, rate, watermark) and reads keys
(``q`` or Ctrl-C cancel); new lines are printed above it as they arrive. Without a terminal
(``-f``) the lines are printed as they come and Ctrl-C (a signal there) cancels.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from repl.style import STYLE
from repl.terminal import Terminal
from sqlengine.progress import shown_watermark

if TYPE_CHECKING:
    from sqlengine.jobs import Job
    from sqlengine.results import ResultTable

log = logging.getLogger("sqlengine.repl.views")
Lines = list[tuple[str, str]]
POLL = 0.2  # seconds between looks at the result


def result_of(job: Job) -> ResultTable:
    """A SELECT's job collects its rows in a result table (``Job.result``); other jobs have none."""
    if job.result is None:
        raise ValueError(f"job {job.id} has no result table: it is not a SELECT")
    return job.result


class Feed(Protocol):
    def poll(self) -> Lines: ...  # lines for what arrived since the last poll

    def finish(self, cancelled: bool) -> Lines: ...  # closing lines


def watermark_text(job: Job) -> str:
    """The job's latest watermark as the views show it (``sqlengine.progress.shown_watermark``);
    the epoch Spark reports before a source has data shows as '-' too."""
    wm = next((s.watermark for s in job.latest.values() if s.watermark), None)
    return "-" if wm and wm.startswith("1970-01-01T00:00:00") else shown_watermark(wm)


def status_line(job: Job, rows: Callable[[], str]) -> StyleAndTextTuples:
    wm = watermark_text(job)
    state = job.status.value
    cls = "class:view.status.bad" if state == "FAILED" else "class:view.status.ok" if job.done else "class:view.status"
    return [
        (cls, f" {state} "),
        ("class:view.status", f" {rows()} · {job.rows_per_second():.0f} rows/s · watermark {wm} · state {job.state_rows()} rows "),
        ("class:view.keys", "  q / Ctrl-C: stop "),
    ]


def run_live(term: Terminal, job: Job, feed: Feed, status: Callable[[], StyleAndTextTuples]) -> bool:
    """Print ``feed`` until the job ends (False) or the user cancels (True)."""
    if not term.interactive:
        return _run_plain(term, job, feed)
    kb = KeyBindings()

    @kb.add("q")
    @kb.add("Q")
    @kb.add("c-c")
    @kb.add("<sigint>")
    @kb.add("escape", eager=True)
    def _cancel(event: KeyPressEvent) -> None:
        if not event.app.is_done:
            event.app.exit(result=True)

    app: Application[bool] = Application(
        layout=Layout(HSplit([Window(FormattedTextControl(status), height=1)])),
        key_bindings=kb,
        style=STYLE,
        input=term.input,
        output=term.output,
        erase_when_done=True,
    )

    async def pump() -> None:
        try:
            while True:
                done = job.done
                lines = feed.poll()
                if lines:
                    await run_in_terminal(partial(term.lines, lines))
                if done:
                    break
                app.invalidate()
                await asyncio.sleep(POLL)
        except asyncio.CancelledError:
            raise
        except Exception:  # logged; the view ends as if the job had
            log.exception("result view")
        if not app.is_done:
            app.exit(result=False)

    def start_pumping() -> None:
        app.create_background_task(pump())

    cancelled = bool(app.run(pre_run=start_pumping, set_exception_handler=False))
    term.lines(feed.finish(cancelled))
    return cancelled


def _run_plain(term: Terminal, job: Job, feed: Feed) -> bool:
    cancelled = False
    try:
        while True:
            done = job.done
            term.lines(feed.poll())
            if done:
                break
            time.sleep(POLL)
    except KeyboardInterrupt:
        cancelled = True
    term.lines(feed.finish(cancelled))
    return cancelled
