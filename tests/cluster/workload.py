"""The queries the cluster and Spark Connect tests run, their input and the rows Flink gives for
them (worked out here), and how `sqlengine run` is started in a subprocess."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from tests.sqlengine.helpers import write_batches

REPO = Path(__file__).resolve().parents[2]
BASE = dt.datetime(2024, 1, 1)
WAIT = 600  # seconds a run may take before the test gives up (not an assertion on speed)
USERS = ["ann", "bob", "cy"]
ORDERS = 90


def cli(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "repl.cli", "--home", str(home), *args]


def env() -> dict[str, str]:
    # the executors' Python workers run this interpreter (docs/deploying.md: PYSPARK_PYTHON)
    return {**os.environ, "PYSPARK_PYTHON": sys.executable}


def run(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(cli(home, *args), cwd=REPO, env=env(), capture_output=True, text=True, timeout=WAIT)


def describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"


def stamp(t: dt.datetime) -> str:
    return t.isoformat(sep=" ", timespec="milliseconds")


def orders() -> list[dict]:
    """90 orders a second apart, three users, distinct amounts (no ties in the Top-2)."""
    return [{"id": i, "usr": USERS[i % 3], "amount": (i * 37) % 101, "ts": stamp(BASE + dt.timedelta(seconds=i))} for i in range(ORDERS)]


def write_orders(directory: Path, files: int = 3) -> Path:
    rows = orders()
    size = -(-len(rows) // files)
    return write_batches(directory, [rows[n * size : (n + 1) * size] for n in range(files)])


def orders_script(source: Path) -> str:
    """A window aggregation (Spark's own state) and a Top-2 per user that retracts (a changelog
    operator on transformWithState), over orders read one file per micro-batch."""
    return f"""CREATE TABLE orders (
    id INT, usr STRING, amount INT, ts TIMESTAMP(3),
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{source}', 'format' = 'json', 'source.max-files-per-trigger' = '1');

SELECT usr, window_start, COUNT(*) AS n, SUM(amount) AS total
FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY usr, window_start, window_end;

SELECT usr, id, amount FROM (
    SELECT usr, id, amount, ROW_NUMBER() OVER (PARTITION BY usr ORDER BY amount DESC) AS rn FROM orders
) WHERE rn <= 2;
"""


def expected_windows() -> Counter:
    acc: dict[tuple[str, str], list[int]] = {}
    for o in orders():
        t = dt.datetime.fromisoformat(o["ts"])
        n_total = acc.setdefault((o["usr"], stamp(t.replace(second=t.second - t.second % 10))), [0, 0])
        n_total[0] += 1
        n_total[1] += o["amount"]
    return Counter((usr, start, n, total) for (usr, start), (n, total) in acc.items())


def expected_top2() -> Counter:
    by_user: dict[str, list[dict]] = {}
    for o in orders():
        by_user.setdefault(o["usr"], []).append(o)
    return Counter((usr, o["id"], o["amount"]) for usr, rows in by_user.items() for o in sorted(rows, key=lambda r: -r["amount"])[:2])


def results(stdout: str) -> tuple[Counter, Counter]:
    """The two SELECTs' rows of a `--format json` run: window rows, Top-2 rows."""
    windows: Counter = Counter()
    top: Counter = Counter()
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        if "window_start" in r:
            windows[(r["usr"], r["window_start"], r["n"], r["total"])] += 1
        else:
            top[(r["usr"], r["id"], r["amount"])] += 1
    return windows, top
