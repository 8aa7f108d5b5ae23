"""The table result mode: a full-screen view of the result, materialized from its changelog and
updated in place as changes arrive (Flink's dynamic table, as its SQL client shows it).

Rows changed by the latest changes are highlighted for a moment. By default the view follows the
end of the table (new rows stay visible); scrolling up stops following, End resumes it. The status
line shows the job's state (RUNNING / FINISHED / FAILED), the row count, the processing rate, the
watermark and, per stateful operator, Spark's state rows and bytes next to the estimate made before
the start. ``q``, Esc or Ctrl-C stops the query and returns to the prompt.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension

from repl.state_prompt import estimate_text, measured_vs_estimate
from repl.style import STYLE
from repl.terminal import Terminal
from repl.views.columns import Columns
from repl.views.live import result_of, watermark_text

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis
    from sqlengine.jobs import Job
    from sqlengine.results import Row

REFRESH = 0.25  # seconds between redraws while the job runs
FRESH_FOR = 1.5  # seconds a changed row stays highlighted
MAX_STATUS_LINES = 4


class TableView:
    def __init__(self, job: Job, analysis: Analysis | None, columns: Columns, *, max_rows: int | None = None, title: str = "") -> None:
        self.job = job
        self.result = result_of(job)
        self.analysis = analysis
        self.columns = columns
        self.max_rows = max_rows
        self.title = title or " ".join(job.sql.split())
        self.offset = 0  # first row shown (when not following)
        self.follow = True
        self.first_col = 0
        self.size = (24, 80)  # rows, columns of the terminal (updated at each render)
        self._seen = 0
        self._fresh: dict[str, float] = {}  # repr(row) -> when it changed
        self._fitted = False
        self.app: Application[bool] | None = None
        self._drawn: dict[str, str] = {}

    # -- data --------------------------------------------------------------------------------

    def _rows(self) -> list[Row]:
        changes, self._seen, _dropped = self.result.changes_since(self._seen)
        now = time.time()
        for ch in changes:
            if ch.kind.adds:
                self._fresh[repr(ch.row)] = now
        if len(self._fresh) > 10_000 or changes:
            self._fresh = {k: t for k, t in self._fresh.items() if now - t < FRESH_FOR}
        rows = self.result.rows()
        if self.max_rows and len(rows) > self.max_rows:
            rows = rows[-self.max_rows :]
        if not self._fitted and rows:
            self.columns.fit(rows[:200])
            self._fitted = True
        return rows

    # -- drawing -----------------------------------------------------------------------------

    def status_lines(self) -> list[tuple[str, str]]:
        job = self.job
        head = f" {job.status.value} · {len(self.result)} rows · {job.rows_per_second():.0f} rows/s · watermark {watermark_text(job)}"
        if job.status.value == "FAILED" and job.error_detail is not None:
            from sqlengine.errors import describe

            head += f" · {describe(job.error_detail)}"
        elif job.done:
            head += " · press q to return"
        cls = "class:view.status.bad" if job.status.value == "FAILED" else "class:view.status.ok" if job.done else "class:view.status"
        lines = [(cls, head)]
        state = measured_vs_estimate(job.latest, self.analysis)
        if not state and self.analysis is not None:
            state = [f"{s.operator}: {s.verdict.value}, est. {estimate_text(self.analysis, s)} (not measured yet)" for s in self.analysis.state]
        for ln in state[: MAX_STATUS_LINES - 1] or ["no state: every row is processed on its own"]:
            lines.append(("class:view.status", f" state: {ln}"))
        return lines

    def page_height(self) -> int:
        rows, _cols = self.size
        return max(1, rows - 1 - 2 - len(self.status_lines()) - 1)

    def _body_in_app(self) -> StyleAndTextTuples:
        try:
            size = get_app().output.get_size()
            self.size = (size.rows, size.columns)
        except Exception:
            pass
        return self.body()

    def body(self) -> StyleAndTextTuples:
        rows = self._rows()
        height = self.page_height()
        last_start = max(0, len(rows) - height)
        if self.follow:
            self.offset = last_start
        self.offset = max(0, min(self.offset, last_start))
        cols = self.columns
        shown = slice(self.first_col, None)
        header = "| " + " | ".join(n[:w].ljust(w) for n, w in list(zip(cols.names, cols.widths, strict=True))[shown]) + " |"
        out: StyleAndTextTuples = [("class:view.header", header + "\n")]
        now = time.time()
        for row in rows[self.offset : self.offset + height]:
            line = cols.line(row)
            if self.first_col:
                line = "| " + line.split(" | ", self.first_col)[-1]
            fresh = now - self._fresh.get(repr(row), 0) < FRESH_FOR
            out.append(("class:view.row.new" if fresh else "", line + "\n"))
        if not rows:
            out.append(("class:dim", "  (no rows yet)\n" if not self.job.done else "  (empty result)\n"))
        self._shown = (self.offset, min(len(rows), self.offset + height), len(rows))
        self._drawn["body"] = "".join(t for _s, t, *_ in out)
        return out

    def title_bar(self) -> StyleAndTextTuples:
        first, last, total = getattr(self, "_shown", (0, 0, 0))
        where = f" rows {first + 1 if total else 0}–{last} of {total}{' · following' if self.follow else ''} "
        width = self.size[1]
        text = f" job {self.job.id} · {self.title}"
        text = text[: max(10, width - len(where) - 1)]
        out: StyleAndTextTuples = [("class:view.title", text.ljust(max(0, width - len(where))) + where)]
        self._drawn["title"] = out[0][1]
        return out

    def status(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for i, (cls, text) in enumerate(self.status_lines()):
            out.append((cls, text.ljust(self.size[1]) + ("\n" if i < len(self.status_lines()) - 1 else "")))
        self._drawn["status"] = "".join(t for _s, t, *_ in out)
        return out

    def keys(self) -> StyleAndTextTuples:
        return [("class:view.keys", " q stop · ↑↓ scroll · PgUp/PgDn page · Home/End top/bottom (follow) · ←→ columns ")]

    def snapshot_text(self) -> str:
        """The last frame drawn: title, column header and page, status, as plain text."""
        d = dict(self._drawn)
        return "\n".join(d.get(k, "") for k in ("title", "body", "status"))

    # -- keys --------------------------------------------------------------------------------

    def scroll(self, delta: int) -> None:
        total = len(self.result)
        height = self.page_height()
        start = self.offset
        self.offset = max(0, min(start + delta, max(0, total - height)))
        self.follow = self.offset >= max(0, total - height) and delta > 0

    def key_bindings(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("q")
        @kb.add("Q")
        @kb.add("c-c")
        @kb.add("<sigint>")
        @kb.add("escape", eager=True)
        def _quit(event: KeyPressEvent) -> None:
            if not event.app.is_done:
                event.app.exit(result=True)

        for keys, delta in ((("up",), -1), (("k",), -1), (("down",), 1), (("j",), 1)):
            kb.add(*keys)(lambda e, d=delta: self.scroll(d))
        kb.add("pageup")(lambda e: self.scroll(-self.page_height()))
        kb.add("pagedown")(lambda e: self.scroll(self.page_height()))
        kb.add(" ")(lambda e: self.scroll(self.page_height()))

        @kb.add("home")
        @kb.add("g")
        def _top(event: KeyPressEvent) -> None:
            self.offset, self.follow = 0, False

        @kb.add("end")
        @kb.add("G")
        def _end(event: KeyPressEvent) -> None:
            self.follow = True

        @kb.add("left")
        @kb.add("h")
        def _left(event: KeyPressEvent) -> None:
            self.first_col = max(0, self.first_col - 1)

        @kb.add("right")
        @kb.add("l")
        def _right(event: KeyPressEvent) -> None:
            self.first_col = min(len(self.columns.names) - 1, self.first_col + 1)

        return kb

    # -- running -----------------------------------------------------------------------------

    def run(self, term: Terminal) -> bool:
        """Show the view until the user leaves it; True when the user stopped a running query."""
        layout = Layout(
            HSplit(
                [
                    Window(FormattedTextControl(self.title_bar), height=1),
                    Window(FormattedTextControl(self._body_in_app), wrap_lines=False),
                    Window(FormattedTextControl(self.status), height=lambda: Dimension.exact(len(self.status_lines())), wrap_lines=False),
                    Window(FormattedTextControl(self.keys), height=1),
                ]
            )
        )
        app: Application[bool] = Application(
            layout=layout,
            key_bindings=self.key_bindings(),
            style=STYLE,
            full_screen=True,
            input=term.input,
            output=term.output,
        )
        self.app = app

        async def refresh() -> None:
            while True:
                app.invalidate()
                await asyncio.sleep(REFRESH if not self.job.done else 1.0)

        def start_refreshing() -> None:
            app.create_background_task(refresh())

        try:
            stopped = bool(app.run(pre_run=start_refreshing, set_exception_handler=False))
        finally:
            self.app = None
        return stopped and not self.job.done
