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
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pty_shell import PROMPT, PtyShell


def one_run(home: Path, timeout: float = 30.0) -> float:
    """Seconds from exec to the prompt text, in a real pty."""
    shell = PtyShell(home)
    try:
        shell.wait_for(PROMPT, timeout)
        return time.perf_counter() - shell.started
    finally:
        shell.close()


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
