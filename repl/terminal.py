"""Where the shell writes and asks: styled lines, yes/no questions, and waiting with a spinner.

Everything goes through prompt_toolkit's Input and Output, so the same code drives a real
terminal, ``-f`` runs with output to a file (plain text, no questions), and tests (a pipe input
and an output to a StringIO). While the shell waits (Spark starting, a job starting) a one-line
application shows a spinner and reads the keyboard, so Ctrl-C cancels the wait: it is a key
there, not a signal, and never ends the shell.
"""

from __future__ import annotations

import asyncio
import errno
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import FormattedText, StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output, create_output
from prompt_toolkit.shortcuts import PromptSession, print_formatted_text

from repl.pipes import OutputClosed
from repl.style import STYLE
from repl.toolbar import SPINNER

if TYPE_CHECKING:
    from repl.views.table import TableView


@contextmanager
def _closed_output_ends() -> Iterator[None]:
    """A write to an output whose reader has gone ends the program (``repl.pipes``), never as a
    failed statement."""
    try:
        yield
    except OSError as err:
        if err.errno == errno.EPIPE:
            raise OutputClosed from None
        raise


@dataclass
class Waited:
    done: bool  # False: the user cancelled the wait
    value: Any = None
    error: BaseException | None = None


class Terminal:
    def __init__(
        self,
        input: Input | None = None,
        output: Output | None = None,
        *,
        interactive: bool = True,
        err_output: Output | None = None,
    ):
        self.input = input
        self.output = output or create_output()
        self.err_output = err_output or self.output
        self.interactive = interactive
        self.current_view: TableView | None = None  # the result view on screen (tests look at it)

    # -- writing -----------------------------------------------------------------------------

    def lines(self, fragments: list[tuple[str, str]], *, err: bool = False) -> None:
        """Print (style class, text) lines. A closed output (``| head``) raises OutputClosed."""
        out: StyleAndTextTuples = []
        for cls, text in fragments:
            out.append((f"class:{cls}" if cls else "", text + "\n"))
        if out:
            with _closed_output_ends():
                print_formatted_text(FormattedText(out), end="", style=STYLE, output=self.err_output if err else self.output)

    def print(self, text: str, style: str = "") -> None:
        self.lines([(style, ln) for ln in text.split("\n")])

    def error(self, text: str) -> None:
        self.lines([("error", ln) for ln in text.split("\n")], err=True)

    def raw(self, text: str) -> None:
        """Text with its own escape sequences (an error rendered in colour)."""
        out = self.err_output
        with _closed_output_ends():
            out.write_raw(text if text.endswith("\n") else text + "\n")
            out.flush()

    # -- asking ------------------------------------------------------------------------------

    def ask(self, question: str) -> bool:
        """A yes/no question; anything but y/yes (Enter, Ctrl-C, Ctrl-D) is no."""
        if not self.interactive:
            return False
        session: PromptSession[str] = PromptSession(input=self.input, output=self.output, style=STYLE)
        try:
            answer = session.prompt([("class:warning", question)], set_exception_handler=False)
        except (KeyboardInterrupt, EOFError):
            return False
        return answer.strip().lower() in ("y", "yes")

    # -- waiting -----------------------------------------------------------------------------

    def wait(
        self,
        fn: Callable[[], Any],
        message: str,
        *,
        on_abandon: Callable[[Any], None] | None = None,
    ) -> Waited:
        """Run ``fn`` in a thread while a spinner shows ``message``; Ctrl-C stops waiting.

        When the wait is cancelled, ``on_abandon`` gets fn's value once it arrives (to stop a job
        that started after all)."""
        box: dict[str, Any] = {}
        lock = threading.Lock()
        finished = threading.Event()

        def work() -> None:
            try:
                box["value"] = fn()
            except BaseException as err:  # handed to the caller
                box["error"] = err
            finally:
                with lock:
                    finished.set()
                    abandoned = box.get("abandoned", False)
                if abandoned and on_abandon is not None and "value" in box:
                    on_abandon(box["value"])

        thread = threading.Thread(target=work, name="shell-wait", daemon=True)
        thread.start()
        if finished.wait(0.15):  # quick things show no spinner
            return Waited(True, box.get("value"), box.get("error"))
        cancelled = self._spin(finished, message) if self.interactive else self._block(finished, message)
        with lock:
            if cancelled and not finished.is_set():
                box["abandoned"] = True
                return Waited(False)
        return Waited(True, box.get("value"), box.get("error"))

    def _block(self, finished: threading.Event, message: str) -> bool:
        self.lines([("dim", message)], err=True)
        try:
            while not finished.wait(0.2):
                pass
        except KeyboardInterrupt:
            return True
        return False

    def _spin(self, finished: threading.Event, message: str) -> bool:
        started = time.time()

        def text() -> StyleAndTextTuples:
            frame = SPINNER[int((time.time() - started) * 10) % len(SPINNER)]
            return [
                ("class:spinner", f"{frame} {message} "),
                ("class:dim", f"{time.time() - started:.0f} s — Ctrl-C cancels"),
            ]

        kb = KeyBindings()

        @kb.add("c-c")
        @kb.add("<sigint>")
        @kb.add("q")
        def _cancel(event: KeyPressEvent) -> None:
            event.app.exit(result=True)

        app: Application[bool] = Application(
            layout=Layout(Window(FormattedTextControl(text), height=1)),
            key_bindings=kb,
            style=STYLE,
            input=self.input,
            output=self.output,
            erase_when_done=True,
        )

        async def tick() -> None:
            while not finished.is_set():
                app.invalidate()
                await asyncio.sleep(0.1)
            if app.is_running and not app.is_done:
                app.exit(result=False)

        def start_ticking() -> None:
            app.create_background_task(tick())

        result = app.run(pre_run=start_ticking, set_exception_handler=False)
        return bool(result)
