"""What one state entry costs in Spark's state stores, measured: the figures behind
planner/analysis/row_bytes.py (STORE_OVERHEAD, SESSION_INDEX_OVERHEAD, BUCKET_OVERHEAD).

For each provider (Flink's names: 'hashmap' = Spark's HDFS-backed store, 'rocksdb') it runs, as
bounded streaming jobs over files, a GROUP BY count over D distinct keys and a 10-second TUMBLE
count and sum per key over K keys, a session count per key over K keys, and the changelog
operators' state (on the JVM and in Python), each at two sizes, and prints Spark's ``numRowsTotal`` and
``memoryUsedBytes`` at the end of the last batch before the end of input. The marginal bytes per
entry, (bytes(2) - bytes(1)) / (rows(2) - rows(1)), less the entry's key and value as Spark's
UnsafeRow lays them out, is the store's own overhead per entry.

    python bench/state_bytes.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from planner.statements.script import parse_script  # noqa: E402
from sqlengine.engine import Engine  # noqa: E402
from sqlengine.session import create_session  # noqa: E402

BATCHES = 4


def write_input(directory: Path, keys: int, rows_per_batch: int) -> None:
    """BATCHES files, one per micro-batch, one row per key and second in turn, in time order."""
    import os

    directory.mkdir(parents=True)
    t = 0.0
    for b in range(BATCHES):
        lines = []
        for i in range(rows_per_batch):
            second = t + i * (10.0 / rows_per_batch)
            stamp = f"2024-01-01 00:{int(second) // 60:02d}:{second % 60:06.3f}"
            lines.append(json.dumps({"ts": stamp, "k": i % keys, "v": i}))
        t += 10.0
        path = directory / f"part-{b:03d}.json"
        path.write_text("\n".join(lines) + "\n")
        os.utime(path, (1_000_000 + b, 1_000_000 + b))


def measure(spark, work: Path, backend: str, query: str, keys: int, settings: str = "") -> tuple[int, int]:
    data = work / f"in-{backend}-{keys}-{abs(hash(query)) % 10_000}"
    write_input(data, keys, max(keys, 2000))
    engine = Engine(home=work / f"home-{data.name}", spark=spark)
    ddl = (
        f"SET 'state.backend.type' = '{backend}';\n{settings}"
        "CREATE TABLE t (ts TIMESTAMP(3), k BIGINT, v BIGINT, pt AS PROCTIME(), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json', 'source.max-files-per-trigger' = '1');\n"
    )
    for stmt in parse_script(ddl).statements:
        engine.plan(stmt)
    (stmt,) = parse_script(query).statements
    job = engine.start(engine.plan(stmt))
    job.wait()
    snaps = [s for s in job.history if s.operators and not (s.watermark or "").startswith("9999")]
    last = snaps[-1].operators[0]
    return last.rows, last.bytes


QUERIES = {
    "GROUP BY k: COUNT(*)": ("SELECT k, COUNT(*) FROM t GROUP BY k;", (1000, 4000)),
    "TUMBLE 10 s per k: COUNT(*), SUM(v)": (
        "SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)) "
        "GROUP BY k, window_start, window_end;",
        (100, 400),
    ),
    # one store keyed by (key, session start) and scanned by the key's prefix: the HDFS-backed
    # store keeps a second map from each prefix to its keys
    # a changelog operator (a HAVING on its result makes the aggregation one), on the JVM: one
    # state row per key (measured in stop 50 with a TTL instead, which now keeps it in Python)
    "changelog GROUP BY k (HAVING), JVM: COUNT(*)": ("SELECT k, COUNT(*) FROM t GROUP BY k HAVING COUNT(*) > 0;", (1000, 4000)),
    "changelog GROUP BY k (HAVING), JVM: COUNT(*), SUM(v), MAX(v)": (
        "SELECT k, COUNT(*), SUM(v), MAX(v) FROM t GROUP BY k HAVING COUNT(*) > 0;", (1000, 4000)),
    # a window aggregation on processing time, on the JVM: one state row per key, holding its open
    # windows (a day's: none closes while the job runs)
    "processing-time TUMBLE 1 d per k, JVM: COUNT(*), SUM(v)": (
        "SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(pt), INTERVAL '1' DAY)) "
        "GROUP BY k, window_start, window_end;", (1000, 4000)),
    # a Top-3 per key and a regular outer join on the JVM: one state row per key, holding its
    # rows (sqlengine/jvm/TopN.java, Join.java); 2,000 and 4,000 keys give each key 4 rows a side
    "changelog Top-3 per k, JVM": (
        "SELECT k, v, r FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM t) WHERE r <= 3;",
        (2000, 4000)),
    "changelog LEFT JOIN on k, JVM": ("SELECT a.k, a.v, b.v FROM t a LEFT JOIN t b ON a.k = b.k;", (2000, 4000)),
    # ... and in Python: its stored state, pickled per bucket of keys, as it reports it
    # (sqlengine.progress.ChangelogKeys)
    "changelog GROUP BY k (TTL), Python: COUNT(*)": (
        "SELECT /*+ STATE_TTL('t' = '1 d') */ k, COUNT(*) FROM t GROUP BY k;", (1000, 4000), "SET 'sqlengine.changelog.jvm' = 'false';\n"),
    "SESSION 5 s per k: COUNT(*)": (
        "SELECT k, SESSION_START(ts, INTERVAL '5' SECOND), COUNT(*) FROM t GROUP BY k, SESSION(ts, INTERVAL '5' SECOND);",
        (100, 400),
    ),
}


# stores that keep no entry: what a store costs before its first entry, per store instance (one
# per partition; a stream-stream join has two per side and partition)
EMPTY = {
    "GROUP BY k, no rows": ("SELECT k, COUNT(*) FROM t WHERE v < 0 GROUP BY k;", 1),
    "interval join, no rows": (
        "SELECT a.k, b.v FROM (SELECT * FROM t WHERE v < 0) a JOIN (SELECT * FROM t WHERE v < 0) b "
        "ON a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts;",
        4,
    ),
}
PARTITIONS = 2


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="sqlengine-state-bytes-"))
    spark = create_session(master="local[2]", conf={"spark.sql.shuffle.partitions": str(PARTITIONS)}, log_dir=work / "logs")
    print("| provider | query | Spark rows | Spark bytes | bytes per store instance |")
    print("|---|---|---|---|---|")
    for backend in ("hashmap", "rocksdb"):
        for name, (query, stores) in EMPTY.items():
            rows, nbytes = measure(spark, work, backend, query, 100)
            print(f"| {backend} | {name} | {rows} | {nbytes} | {nbytes / (stores * PARTITIONS):.0f} |", flush=True)
    if "--empty" in sys.argv:
        return
    print()
    print("| provider | query | keys | Spark rows | Spark bytes | bytes per entry (marginal) |")
    print("|---|---|---|---|---|---|")
    for backend in ("hashmap", "rocksdb"):
        for name, (query, sizes, *settings) in QUERIES.items():
            (r1, b1), (r2, b2) = (measure(spark, work, backend, query, k, "".join(settings)) for k in sizes)
            per = (b2 - b1) / (r2 - r1) if r2 != r1 else float("nan")
            print(f"| {backend} | {name} | {sizes[0]} / {sizes[1]} | {r1} / {r2} | {b1} / {b2} | {per:.0f} |", flush=True)


if __name__ == "__main__":
    main()
