"""Interactive latency: how soon a continuous window query shows its first row, in sqlengine's
shell and on Apache Flink 2.3, side by side in one run.

    python bench/interactive_latency.py [--runs 4] [--think 10] [--flink-python /tmp/flink/bin/python]

The query, on both engines: a 2-second TUMBLE count over datagen (100 rows/s, event time
``ts AS LOCALTIMESTAMP`` with a 1-second watermark delay), as Flink's docs write it:

    SELECT window_start, window_end, COUNT(*) AS n
    FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end

sqlengine: the real shell in a pseudo-terminal (bench/pty_shell.py) with a new home, result mode
tableau; once as it starts by default, once with ``--no-warm-up``. Run 1 is sent ``--think``
seconds after the toolbar says Spark is ready (a user typing the first query; the shell warms its
JVM up meanwhile, sqlengine/warm_up.py, and stops that when a job starts); each later run right
after the previous one is stopped (Ctrl-C). Flink: PyFlink's local mini-cluster (parallelism 2,
loopback only; ``table.local-time-zone`` UTC, as sqlengine's session), run 1 in a new
TableEnvironment (the mini-cluster starts with it), the later runs in the same one; and Flink's own
SQL client in a pseudo-terminal as sqlengine's shell (bench/flink_shell.py: ``sql-client.sh
embedded`` on a local mini-cluster, which starts with each query), tableau mode, run 1 sent
``--think`` seconds after its prompt, each later run right after the previous one is stopped.

Per run, two figures: **first row**, seconds from the statement sent to its first row shown; and
**over**, how long after its window's end plus the watermark delay that row came (the wall clock at
the row minus window_end + 1 s: the part of the wait that is the engine's and not the window's).
The goal (issue 14): over ≤ 2 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import flink_shell
from pty_shell import TABLEAU_INIT, PtyShell

ROOT = Path(__file__).resolve().parents[1]
DELAY_S = 1
ENGINES = ("sqlengine", "sqlengine --no-warm-up", "Flink SQL client", "flink")
DDL = ("CREATE TABLE g (k INT, ts AS LOCALTIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
       "WITH ('connector' = 'datagen', 'rows-per-second' = '100', 'fields.k.min' = '1', 'fields.k.max' = '5')")
QUERY = ("SELECT window_start, window_end, COUNT(*) AS n "
         "FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end")
# the toolbar redraws only what changed: "ready" comes after the style code that replaces "starting…"
SPARK_READY = re.compile(rb"(?:Spark: |\x1b\[[0-9;]*m)ready")
TS = rb"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})"
FIRST_ROW = re.compile(rb"\| +\+I \| +" + TS + rb" \| +" + TS + rb" \|")


def over(window_end: dt.datetime, seen_at: float) -> float:
    """Seconds between window_end + the delay (UTC) and the wall-clock time the row was seen."""
    due = window_end.replace(tzinfo=dt.UTC) + dt.timedelta(seconds=DELAY_S)
    return seen_at - due.timestamp()


def shell_runs(engine: str, runs: int, think: float, flink_python: str) -> list[dict]:
    """``runs`` queries in one shell in a pseudo-terminal: sqlengine's, or Flink's SQL client."""
    tmp = Path(tempfile.mkdtemp(prefix="sqlengine-latency-"))
    init = tmp / "init.sql"
    init.write_text(TABLEAU_INIT)
    flink = engine == "Flink SQL client"
    if flink:
        shell = flink_shell.start(flink_python, init, tmp / "history", rows=50, cols=160)
    else:
        shell = PtyShell(tmp / "home", rows=50, cols=160, args=("-i", str(init), *engine.split()[1:]))
    out = []
    try:
        shell.wait_for(shell.prompt, 120)
        if not flink:
            shell.wait_for(SPARK_READY, 120)
        time.sleep(think)
        mark = len(shell.seen)
        shell.send(DDL + ";\r")
        shell.wait_for(b"[INFO]", 30, mark)
        for i in range(runs):
            mark = len(shell.seen)
            sent = time.perf_counter()
            shell.send(QUERY + ";\r")
            m = shell.wait_for(FIRST_ROW, 120, mark)
            assert isinstance(m, re.Match)
            seen, wall = time.perf_counter(), time.time()
            end = dt.datetime.fromisoformat(m.group(2).decode())
            out.append({"engine": engine, "run": i + 1, "first_row": seen - sent, "over": over(end, wall)})
            mark = len(shell.seen)
            shell.send("\x03")  # Ctrl-C: stop the query, back to the prompt
            shell.wait_for(shell.prompt, 60, mark)
            time.sleep(1)
    finally:
        shell.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def flink_runs(python: str, runs: int) -> list[dict]:
    done = subprocess.run([python, str(ROOT / "bench" / "flink_side.py"), "latency", str(runs), DDL, QUERY],
                          capture_output=True, text=True, check=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=4, help="queries per engine; run 1 is the session's first")
    ap.add_argument("--think", type=float, default=10.0, help="seconds between Spark ready and the first query")
    ap.add_argument("--flink-python", default="/tmp/flink/bin/python")
    ap.add_argument("--engines", default=",".join(ENGINES), help=f"which of {', '.join(ENGINES)} (comma-separated)")
    ap.add_argument("--out", type=Path, default=Path("interactive_latency.json"))
    args = ap.parse_args()
    engines = [e for e in ENGINES if e in args.engines.split(",")]
    results = []
    for engine in engines:
        got = (flink_runs(args.flink_python, args.runs) if engine == "flink"
               else shell_runs(engine, args.runs, args.think, args.flink_python))
        for r in got:
            print(f"{r['engine']:24} run {r['run']}: first row {r['first_row']:5.2f} s, over window end + delay {r['over']:5.2f} s",
                  flush=True)
        results += got
    print("\n| engine | first row, run 1 (s) | over, run 1 (s) | first row, later runs (median s) | over, later runs (median s) |")
    print("|---|---|---|---|---|")
    for engine in engines:
        rs = [r for r in results if r["engine"] == engine]
        later = rs[1:] or rs
        print(f"| {engine} | {rs[0]['first_row']:.2f} | {rs[0]['over']:.2f} | "
              f"{statistics.median(r['first_row'] for r in later):.2f} | {statistics.median(r['over'] for r in later):.2f} |")
    args.out.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
