"""The real shell (``python -m repl.cli``, or another engine's shell: ``command``) in a
pseudo-terminal, as a user has it: 80x24 unless told, cursor-position requests answered as a
terminal would. Shared by bench/shell_startup.py and bench/interactive_latency.py."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

from as_installed import sqlengine_env

ROOT = Path(__file__).resolve().parents[1]
PROMPT = b"sqlengine>"
# an init file (-i) both sqlengine's shell and Flink's SQL client take: results printed in the scrollback
TABLEAU_INIT = "SET 'sql-client.execution.result-mode' = 'tableau';\n"
CPR_REQUEST = b"\x1b[6n"


class PtyShell:
    def __init__(self, home: Path | None, rows: int = 24, cols: int = 80, args: tuple[str, ...] = (),
                 command: list[str] | None = None, prompt: bytes | re.Pattern[bytes] = PROMPT) -> None:
        self.prompt = prompt  # what the shell shows when it waits for a statement
        env = sqlengine_env(PYTHONPATH=str(ROOT), TERM="xterm-256color")
        argv = command or [sys.executable, "-m", "repl.cli", "--home", str(home), *args]
        self.started = time.perf_counter()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the shell
            os.chdir(ROOT)
            os.execvpe(argv[0], argv, env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.seen = b""  # everything the shell printed

    def read(self, timeout: float) -> bytes:
        """What the shell prints within ``timeout`` seconds (b"" if nothing); answers CPRs."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return b""
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # the shell has exited
            raise EOFError from None
        if not chunk:
            raise EOFError
        if CPR_REQUEST in chunk:
            os.write(self.fd, b"\x1b[1;1R")
        self.seen += chunk
        return chunk

    def wait_for(self, pattern: bytes | re.Pattern[bytes], timeout: float, since: int = 0) -> re.Match[bytes] | int:
        """Read until ``pattern`` (a substring or a regex) appears in the output after offset
        ``since``; its match (or the offset just past the substring). Raises TimeoutError."""
        deadline = time.perf_counter() + timeout
        while True:
            if isinstance(pattern, bytes):
                at = self.seen.find(pattern, since)
                if at >= 0:
                    return at + len(pattern)
            elif m := pattern.search(self.seen, since):
                return m
            if time.perf_counter() > deadline:
                tail = self.seen.decode(errors="replace")[-2000:]
                raise TimeoutError(f"{pattern!r} not seen within {timeout} s; the shell printed:\n{tail}")
            self.read(0.05)

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self, timeout: float = 20.0) -> None:
        """Ctrl-D, then wait for the shell to end (killed if it does not)."""
        try:
            os.write(self.fd, b"\x04")
        except OSError:
            pass
        deadline = time.time() + timeout
        try:
            while time.time() < deadline:
                try:
                    self.read(0.05)
                except EOFError:
                    pass
                done, _status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    return
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        finally:
            try:
                os.close(self.fd)
            except OSError:
                pass
