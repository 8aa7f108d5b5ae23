"""`sqlengine run` start-up: the wall time of a whole run of a small file (a datagen table and a
grouped count: the JVM start, the session, one short job, the exit), with the class cache
(sqlengine/class_cache.py) and without it, runs alternating so both see the same machine load.

    python bench/run_startup.py [--runs 5] [--cache DIR]

The first run with the cache only leaves a mark and the second writes the archive (both reported
apart); the figures are the medians of the runs after them. docs/running.md quotes them.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from as_installed import sqlengine_env

ROOT = Path(__file__).resolve().parents[1]
SQL = """CREATE TABLE g (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '1000',
    'fields.k.min' = '1', 'fields.k.max' = '10');
SELECT k, COUNT(*) AS n FROM g GROUP BY k;
"""


def one_run(work: Path, cache: str) -> float:
    home = Path(tempfile.mkdtemp(dir=work))
    env = sqlengine_env(SQLENGINE_CLASS_CACHE=cache)
    cmd = [sys.executable, "-m", "repl.cli", "--home", str(home), "run", "--bounded", "--format", "csv", str(work / "q.sql")]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    took = time.perf_counter() - start
    if proc.returncode != 0 or len(proc.stdout.split()) != 11:
        sys.exit(f"the run failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="runs of each kind after the cache is written (default 5)")
    ap.add_argument("--cache", help="the class cache directory (default: a fresh temporary one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "q.sql").write_text(SQL)
        cache = args.cache or str(work / "cache")
        first, second = one_run(work, cache), one_run(work, cache)
        print(f"first run (leaves a mark): {first:.2f} s; second run (writes the cache): {second:.2f} s", flush=True)
        timed: dict[str, list[float]] = {"with the class cache": [], "without (SQLENGINE_CLASS_CACHE=off)": []}
        for i in range(args.runs):
            for name, setting in zip(timed, (cache, "off"), strict=True):
                timed[name].append(one_run(work, setting))
                print(f"  run {i + 1}/{args.runs} {name}: {timed[name][-1]:.2f} s", flush=True)
        medians = {name: statistics.median(t) for name, t in timed.items()}
        for name, m in medians.items():
            print(f"{name}: median {m:.2f} s (min {min(timed[name]):.2f}, max {max(timed[name]):.2f})")
        with_cache, without = medians.values()
        print(f"ratio: {without / with_cache:.2f}x faster with the cache")


if __name__ == "__main__":
    main()
