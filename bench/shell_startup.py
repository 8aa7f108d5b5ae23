"""Shell startup: time from launching ``python -m repl.cli`` in a pseudo-terminal until the prompt
(``sqlengine>``) is on screen.

    python bench/shell_startup.py [--runs 7] [--home DIR]

Each run starts the real shell in a fresh pty (80x24; cursor-position requests are answered as a
terminal would), waits for the prompt text, then sends Ctrl-D and waits for the process to end.
The home is created by the first run and reused (as a user's is); the first run is reported apart
as "cold home". Prints every run and the median; the goal is under 1.5 s. Spark is started in the
background only once the prompt is up, so it is not part of the figure (it shows in the toolbar
as "starting…" and takes ~10 s on a 2-core machine).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROMPT = b"sqlengine>"
CPR_REQUEST = b"\x1b[6n"


def one_run(home: Path, timeout: float = 30.0) -> float:
    """Seconds from exec to the prompt text, in a real pty."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell
        os.chdir(ROOT)
        os.execvpe(sys.executable, [sys.executable, "-m", "repl.cli", "--home", str(home)], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    elapsed = None
    deadline = start + timeout
    try:
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if CPR_REQUEST in chunk:
                os.write(fd, b"\x1b[1;1R")
            if elapsed is None and PROMPT in seen:
                elapsed = time.perf_counter() - start
                os.write(fd, b"\x04")  # Ctrl-D: quit
        if elapsed is None:
            raise RuntimeError(f"no prompt within {timeout} s; the shell printed:\n{seen.decode(errors='replace')[-2000:]}")
        _reap(pid, fd)
        return elapsed
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def _reap(pid: int, fd: int, timeout: float = 20.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            select.select([fd], [], [], 0.05)
            os.read(fd, 65536)
        except OSError:
            pass
        done, _status = os.waitpid(pid, os.WNOHANG)
        if done:
            return
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--home", help="engine home to use (default: a new temporary one)")
    args = ap.parse_args()
    tmp = None
    if args.home:
        home = Path(args.home)
    else:
        tmp = tempfile.mkdtemp(prefix="sqlengine-startup-")
        home = Path(tmp) / "home"
    try:
        cold = one_run(home)
        print(f"run 0 (cold home): {cold:.3f} s")
        times = []
        for i in range(1, args.runs + 1):
            t = one_run(home)
            times.append(t)
            print(f"run {i}: {t:.3f} s")
        median = statistics.median(times)
        print(f"median startup-to-prompt over {len(times)} runs: {median:.3f} s (goal < 1.5 s; min {min(times):.3f}, max {max(times):.3f})")
        return 0 if median < 1.5 else 1
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
