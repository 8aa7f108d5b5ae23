"""Drives the real shell (``repl.shell.Shell`` with a real Engine) through prompt_toolkit's pipe
input: keystrokes go in as a terminal would send them, everything the shell draws goes to a VT100
output over an in-memory stream, read back with the escape sequences removed."""

from __future__ import annotations

import io
import re
import threading
import time

from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from repl.shell import Shell
from repl.terminal import Terminal

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78]|\x1b\][^\x07]*\x07|[\x07\x0e\x0f]")

ENTER, CTRL_C, CTRL_D, TAB, ALT_ENTER, ESC = "\r", "\x03", "\x04", "\t", "\x1b\r", "\x1b"


class Screen(io.StringIO):
    """The output stream: thread-safe enough (the GIL), never a tty."""

    def isatty(self) -> bool:
        return False


class ShellDriver:
    def __init__(self, engine=None, *, rows: int = 40, columns: int = 160, start_spark: bool = False, history=None, main_args=None):
        """A shell over ``engine``; or, with ``main_args``, the whole entry ``repl.shell_main.main``
        (arguments as the CLI parses them)."""
        self._pipe_cm = create_pipe_input()
        self.pipe = self._pipe_cm.__enter__()
        self.screen = Screen()
        self.output = Vt100_Output(self.screen, lambda: Size(rows=rows, columns=columns), term="xterm-256color", enable_cpr=False)
        self.term = Terminal(self.pipe, self.output)
        self.main_args = main_args
        self.shell = Shell(engine, self.term, history=history, start_spark=start_spark) if main_args is None else None
        self.exit_code: int | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="shell-under-test", daemon=True)

    def _run(self) -> None:
        # its own app session: a shell left running by one test never becomes the "current
        # application" that another test's prints are routed to (prompt_toolkit's default
        # session is one per process)
        try:
            with create_app_session(input=self.pipe, output=self.output):
                self._run_shell()
        except BaseException as err:  # surfaced by the test
            self.error = err

    def _run_shell(self) -> None:
        if self.shell is not None:
            self.exit_code = self.shell.run()
        else:
            from repl.shell_main import main

            self.exit_code = main(self.main_args, term=self.term, start_spark=False)

    # -- driving -----------------------------------------------------------------------------

    def start(self) -> ShellDriver:
        self.thread.start()
        self.wait_for("sqlengine>")
        return self

    def send(self, keys: str) -> None:
        self.pipe.send_text(keys)

    def run(self, sql: str, *, timeout: float = 60) -> str:
        """Type ``sql`` and Enter, wait for the next prompt; return what was drawn meanwhile (the
        echo of the statement included). ``sql`` should hold one Enter's worth of input: a line
        break after a complete statement would run it and count as the prompt waited for."""
        mark = self.mark()
        prompts = self.shell.prompts
        self.send(sql + ENTER)
        self.wait_until(lambda: self.shell.prompts > prompts or not self.thread.is_alive(), timeout, f"the prompt after {sql!r}")
        return self.text()[mark:]

    # -- reading -----------------------------------------------------------------------------

    def text(self) -> str:
        return ANSI.sub("", self.screen.getvalue())

    def mark(self) -> int:
        return len(self.text())

    def wait_for(self, needle: str, *, since: int = 0, timeout: float = 30) -> str:
        """Wait until ``needle`` appears after position ``since``; the text up to it."""
        deadline = time.time() + timeout
        while True:
            text = self.text()[since:]
            found = text.find(needle)
            if found >= 0:
                return text[: found + len(needle)]
            if self.error is not None:
                raise AssertionError(f"the shell raised {self.error!r}") from self.error
            if not self.thread.is_alive() and self.thread.ident is not None and needle not in text:
                raise AssertionError(f"the shell ended (exit {self.exit_code}) before {needle!r} appeared:\n{text[-3000:]}")
            if time.time() > deadline:
                raise AssertionError(f"{needle!r} did not appear within {timeout} s; the screen ends with:\n{text[-3000:]}")
            time.sleep(0.05)

    def wait_until(self, predicate, timeout: float = 30, what: str = "condition"):
        deadline = time.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if self.error is not None:
                raise AssertionError(f"the shell raised {self.error!r}") from self.error
            if time.time() > deadline:
                raise AssertionError(f"{what} not reached within {timeout} s; the screen ends with:\n{self.text()[-3000:]}")
            time.sleep(0.1)

    def buffer_text(self) -> str:
        session = self.shell.session
        return session.default_buffer.text if session is not None else ""

    # -- ending ------------------------------------------------------------------------------

    def join(self, timeout: float = 30) -> int | None:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), f"the shell did not end; the screen ends with:\n{self.text()[-2000:]}"
        if self.error is not None:
            raise AssertionError(f"the shell raised {self.error!r}") from self.error
        return self.exit_code

    def close(self) -> None:
        if self.thread.is_alive() and self.shell is not None:
            for job in self.shell.engine.job_list():
                if not job.done:
                    job.stop()
        if self.thread.is_alive():
            self.send(CTRL_C + CTRL_D)
            self.thread.join(10)
        self._pipe_cm.__exit__(None, None, None)
