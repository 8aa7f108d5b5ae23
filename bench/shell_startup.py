"""Shell start-up, sqlengine's shell and Apache Flink 2.3's SQL client side by side: how long from
launching the shell until its prompt is on screen, and until it has answered a first query.

    python bench/shell_startup.py [--runs 7] [--flink-python /tmp/flink/bin/python | --no-flink]

Each run starts the real shell in a fresh pseudo-terminal (bench/pty_shell.py: 80x24, cursor
position requests answered as a terminal would), with an init file setting the tableau result mode
(``-i``, on both), and times three things:
- **prompt**: from exec to the prompt text (``sqlengine>``, ``Flink SQL>``);
- **first answer**: from exec to the row of ``SELECT 4242 AS answer``, sent as soon as the prompt
  shows (a user who knows what to type: sqlengine's shell is up before Spark is, and the query waits
  for it; Flink's client has started its local gateway before it shows the prompt, and the query
  starts a mini-cluster);
- **next answer**: the same query once more, from the statement sent to its row (the warm shell).
Then Ctrl-D. The engines alternate run by run. sqlengine's home is created by its first run and
reused (as a user's is); that first run is reported apart as "cold home". Flink's client is
``sql-client.sh embedded`` from the PyFlink install (bench/flink_shell.py; parallelism 2, local
mini-cluster). Prints every run and a table of medians; exits non-zero when sqlengine's median
start to prompt is not under the 1.5-s goal.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import flink_shell
from pty_shell import TABLEAU_INIT, PtyShell

QUERY = "SELECT 4242 AS answer;\r"
# the row, not the echo of the statement: "| 4242 |" (sqlengine) or "| +I | 4242 |" (Flink)
ANSWER = re.compile(rb"\|\s*(?:\+I\s*\|\s*)?4242\s*\|")


def one_run(shell: PtyShell, timeout: float = 180.0) -> dict:
    """The three times of one shell, already started; closes it."""
    try:
        shell.wait_for(shell.prompt, timeout)
        at_prompt = time.perf_counter() - shell.started
        mark = len(shell.seen)
        shell.send(QUERY)
        shell.wait_for(ANSWER, timeout, mark)
        first = time.perf_counter() - shell.started
        shell.wait_for(shell.prompt, timeout, mark)
        mark = len(shell.seen)
        sent = time.perf_counter()
        shell.send(QUERY)
        shell.wait_for(ANSWER, timeout, mark)
        return {"prompt": at_prompt, "first": first, "next": time.perf_counter() - sent}
    finally:
        shell.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--flink-python", default="/tmp/flink/bin/python",
                    help="python of the PyFlink 2.3 install (bench/flink_compare.py makes it)")
    ap.add_argument("--no-flink", action="store_true", help="time sqlengine's shell only")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sqlengine-startup-"))
    try:
        init = tmp / "init.sql"
        init.write_text(TABLEAU_INIT)
        home = tmp / "home"
        cold = one_run(PtyShell(home, args=("-i", str(init))))
        print(f"sqlengine run 0 (cold home): {fmt(cold)}", flush=True)
        times: dict[str, list[dict]] = {"sqlengine": [], "Flink SQL client": []}
        for i in range(1, args.runs + 1):
            t = one_run(PtyShell(home, args=("-i", str(init))))
            times["sqlengine"].append(t)
            print(f"sqlengine run {i}: {fmt(t)}", flush=True)
            if not args.no_flink:
                t = one_run(flink_shell.start(args.flink_python, init, tmp / "flink-history"))
                times["Flink SQL client"].append(t)
                print(f"Flink SQL client run {i}: {fmt(t)}", flush=True)
        print(f"\nmedians of {args.runs} runs\n")
        print("| shell | start to prompt (s) | start to first answer (s) | next answer (s) |")
        print("|---|---|---|---|")
        for engine, runs in times.items():
            if runs:
                m = {k: statistics.median(r[k] for r in runs) for k in ("prompt", "first", "next")}
                print(f"| {engine} | {m['prompt']:.2f} | {m['first']:.2f} | {m['next']:.2f} |")
        median = statistics.median(r["prompt"] for r in times["sqlengine"])
        return 0 if median < 1.5 else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fmt(t: dict) -> str:
    return f"prompt {t['prompt']:.3f} s, first answer {t['first']:.3f} s, next answer {t['next']:.3f} s"


if __name__ == "__main__":
    sys.exit(main())
