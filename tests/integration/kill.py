"""Kill -9 and resume, shared by bench/kill_recovery.py and the kill-recovery tests.

A seeded stream of orders (with redelivered duplicates) is read from files and from a Kafka topic
by stateful INSERTs, all in one statement set run by the real CLI (`python -m repl.cli run`). The
driver starts the CLI in a process group of its own, waits until the job has finished a
micro-batch, lets it run a random while longer and kills the whole group (the Python process and
its JVM) with SIGKILL; then it runs the same file again, and so on, and finally lets it run to the
end. The sinks are then read as a reader that honours their commit protocol would: a filesystem
sink's committed files only (its ``_spark_metadata`` log; a file an interrupted batch wrote and
never committed is left out), an upsert-kafka topic as a table (the latest value of each key, a
tombstone deleting it).

The input has no late rows (disorder and redelivery delay stay well inside the watermark delay),
so every result is determined by the input alone, whatever the micro-batch boundaries: the result
of a run can be compared with a failure-free run and with ``expected`` (computed here in Python).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from tests.sink_log import committed_files

REPO = Path(__file__).resolve().parents[2]
BASE = dt.datetime(2024, 1, 1)
WINDOW_S = 10
PIPELINE = "kill-recovery"  # 'pipeline.name': the job's checkpoint is <home>/checkpoints/<this>
CENT = Decimal("0.01")

Row = tuple[tuple[str, object], ...]  # a sink row, comparable and hashable: sorted (column, value)


# -- the input -------------------------------------------------------------------------------------


def make_orders(seed: int, orders: int, chunks: int, users: int = 20, step_ms: int = 50, redelivered: float = 0.15) -> list[list[dict]]:
    """``orders`` orders in arrival order, cut into ``chunks`` (files, or Kafka batches). Event
    time advances ``step_ms`` per order with up to 1 s of disorder; a share of the orders is
    delivered again, identical, up to 30 orders (1.5 s) later: the duplicates a keep-first
    deduplication drops. The watermark delay (5 s) is larger than both, so no row is late."""
    rng = random.Random(seed)
    stream: list[tuple[float, dict]] = []
    for i in range(orders):
        t = BASE + dt.timedelta(milliseconds=i * step_ms - rng.randint(0, 1000))
        row = {"order_id": i + 1, "user_id": f"u{rng.randrange(users):02d}", "amount": rng.randint(100, 99_999) / 100,
               "ts": t.isoformat(sep=" ", timespec="milliseconds")}
        stream.append((i, row))
        if rng.random() < redelivered:
            stream.append((i + rng.uniform(0.5, 30), row))
    rows = [r for _, r in sorted(stream, key=lambda p: p[0])]
    size = -(-len(rows) // chunks)
    return [rows[n * size:(n + 1) * size] for n in range(chunks)]


def write_files(directory: Path, chunks: list[list[dict]]) -> None:
    """One JSON-lines file per chunk, modification times one second apart: Spark's file source
    reads them oldest first, in the order written."""
    directory.mkdir(parents=True, exist_ok=True)
    for n, rows in enumerate(chunks):
        path = directory / f"orders-{n:04d}.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))


def produce(servers: str, topic: str, chunks: list[list[dict]], partitions: int) -> None:
    """The same stream into a topic created with ``partitions`` partitions, spread round robin
    (so every partition moves through event time at the same pace)."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    admin = KafkaAdminClient(bootstrap_servers=servers)
    try:
        admin.create_topics([NewTopic(topic, partitions, 1)])
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=servers, linger_ms=20)
    for i, row in enumerate(r for chunk in chunks for r in chunk):
        producer.send(topic, value=json.dumps(row).encode(), partition=i % partitions)
    producer.flush()
    producer.close()


# -- the cases: what each INSERT computes, and what it must end with --------------------------------

SOURCE_COLUMNS = """order_id BIGINT, user_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3),
  proc AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND"""

QUERIES = {
    # a TUMBLE window aggregation: count and sum per user and 10 seconds (append, final per window)
    "window": ("user_id STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), orders BIGINT, total DECIMAL(20, 2)",
               "SELECT user_id, window_start, window_end, COUNT(*) AS orders, SUM(amount) AS total\n"
               f"FROM TABLE(TUMBLE(TABLE {{src}}, DESCRIPTOR(ts), INTERVAL '{WINDOW_S}' SECOND))\n"
               "GROUP BY user_id, window_start, window_end", None),
    # keep-first deduplication on processing time: insert-only, so it can go to the filesystem
    # sink (on event time, a later row with an earlier time would replace the first: an update)
    "dedup": ("order_id BIGINT, user_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)",
              "SELECT order_id, user_id, amount, ts FROM (\n"
              "  SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY proc ASC) AS rn FROM {src}\n"
              ") WHERE rn = 1", None),
    # keep-first deduplication on event time: an updating query, for upsert-kafka
    "first": ("order_id BIGINT, user_id STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)",
              "SELECT order_id, user_id, amount, ts FROM (\n"
              "  SELECT *, ROW_NUMBER() OVER (PARTITION BY order_id ORDER BY ts ASC) AS rn FROM {src}\n"
              ") WHERE rn = 1", "order_id"),
    # the two largest orders per user: a Top-N, which runs as sqlengine's changelog operator (its
    # state in the checkpoint's RocksDB store); with the rank, an upsert on (user, rank)
    "top2": ("user_id STRING, rn BIGINT, order_id BIGINT, amount DECIMAL(10, 2)",
             "SELECT user_id, rn, order_id, amount FROM (\n"
             "  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY amount DESC, order_id DESC) AS rn FROM {src}\n"
             ") WHERE rn <= 2", "user_id, rn"),
    # running totals per user: every micro-batch updates them, for upsert-kafka
    "totals": ("user_id STRING, orders BIGINT, total DECIMAL(20, 2)",
               "SELECT user_id, COUNT(*) AS orders, SUM(amount) AS total FROM {src} GROUP BY user_id", "user_id"),
}


@dataclass(frozen=True)
class Case:
    source: str  # "fs" or "kafka"
    query: str  # a key of QUERIES
    sink: str  # "fs" (the filesystem sink) or "upsert" (upsert-kafka)

    @property
    def name(self) -> str:
        return f"{self.source}-{self.query}-{self.sink}"

    @property
    def table(self) -> str:
        return self.name.replace("-", "_")


FS_CASES = (Case("fs", "window", "fs"), Case("fs", "dedup", "fs"))
KAFKA_CASES = (Case("kafka", "window", "fs"), Case("kafka", "dedup", "fs"),
               Case("kafka", "first", "upsert"), Case("kafka", "totals", "upsert"), Case("kafka", "top2", "upsert"))


def expected(query: str, chunks: list[list[dict]]) -> Counter[Row]:
    """What ``query`` ends with over the whole input, computed here, as sink rows."""
    rows = [r for chunk in chunks for r in chunk]
    out: Counter[Row] = Counter()
    if query == "window":
        groups: dict[tuple[str, dt.datetime], list[Decimal]] = {}
        for r in rows:
            t = dt.datetime.fromisoformat(r["ts"])
            start = t - dt.timedelta(seconds=t.second % WINDOW_S, microseconds=t.microsecond)
            groups.setdefault((r["user_id"], start), []).append(_money(r["amount"]))
        for (user, start), amounts in groups.items():
            out[row({"user_id": user, "window_start": start, "window_end": start + dt.timedelta(seconds=WINDOW_S),
                     "orders": len(amounts), "total": sum(amounts)})] += 1
    elif query in ("dedup", "first"):
        first: dict[int, dict] = {}
        for r in rows:
            first.setdefault(r["order_id"], r)  # a redelivery is identical: either one is the first
        out.update(row(r) for r in first.values())
    elif query == "top2":
        ranked: dict[str, list[dict]] = {}
        for r in rows:
            ranked.setdefault(r["user_id"], []).append(r)
        for user, orders in ranked.items():
            orders.sort(key=lambda r: (_money(r["amount"]), r["order_id"]), reverse=True)
            out.update(row({"user_id": user, "rn": n, "order_id": r["order_id"], "amount": r["amount"]})
                       for n, r in enumerate(orders[:2], 1))
    elif query == "totals":
        totals: dict[str, list[Decimal]] = {}
        for r in rows:
            totals.setdefault(r["user_id"], []).append(_money(r["amount"]))
        out.update(row({"user_id": u, "orders": len(a), "total": sum(a)}) for u, a in totals.items())
    return out


def _money(value: object) -> Decimal:
    return Decimal(str(value)).quantize(CENT)


def row(obj: dict) -> Row:
    """A row as comparable values: money to the cent, times as datetimes (the sink writes
    '2024-01-01 00:00:10.000000'), whichever way they were spelled."""
    out = []
    for k, v in obj.items():
        if k in ("amount", "total"):
            v = _money(v)
        elif k in ("ts", "window_start", "window_end") and isinstance(v, str):
            v = dt.datetime.fromisoformat(v)
        out.append((k, v))
    return tuple(sorted(out))


# -- the SQL ---------------------------------------------------------------------------------------


def script(cases: Iterable[Case], *, sinks: Path, source_dir: Path | None = None, servers: str | None = None,
           topic: str | None = None, topic_prefix: str = "", per_trigger: int = 100) -> str:
    """One statement set with an INSERT per case (query i is checkpointed under q<i>)."""
    cases = list(cases)
    parts = [f"SET 'pipeline.name' = '{PIPELINE}';"]
    if any(c.source == "fs" for c in cases):
        parts.append(f"CREATE TABLE orders_fs (\n  {SOURCE_COLUMNS}\n) WITH ('connector' = 'filesystem', "
                     f"'path' = '{source_dir}', 'format' = 'json', 'source.max-files-per-trigger' = '1');")
    if any(c.source == "kafka" or c.sink == "upsert" for c in cases):
        assert servers and topic, "a Kafka case needs a broker and a topic"
    if any(c.source == "kafka" for c in cases):
        parts.append(f"CREATE TABLE orders_kafka (\n  {SOURCE_COLUMNS}\n) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                     f"'properties.bootstrap.servers' = '{servers}', 'scan.startup.mode' = 'earliest-offset', "
                     f"'scan.bounded.mode' = 'latest-offset', 'scan.max-offsets-per-trigger' = '{per_trigger}', "
                     "'format' = 'json');")
    inserts = []
    for c in cases:
        columns, select, key = QUERIES[c.query]
        if c.sink == "fs":
            parts.append(f"CREATE TABLE {c.table} ({columns}) WITH ('connector' = 'filesystem', "
                         f"'path' = '{sinks / c.name}', 'format' = 'json');")
        else:
            parts.append(f"CREATE TABLE {c.table} ({columns}, PRIMARY KEY ({key}) NOT ENFORCED) WITH ("
                         f"'connector' = 'upsert-kafka', 'topic' = '{topic_prefix}{c.name}', "
                         f"'properties.bootstrap.servers' = '{servers}', 'key.format' = 'json', 'value.format' = 'json');")
        inserts.append(f"INSERT INTO {c.table}\n" + select.format(src=f"orders_{c.source}") + ";")
    parts.append("EXECUTE STATEMENT SET BEGIN\n" + "\n".join(inserts) + "\nEND;")
    return "\n".join(parts) + "\n"


# -- reading the sinks -----------------------------------------------------------------------------


def read_sink(sink: Path) -> tuple[Counter[Row], int]:
    """(the rows of the committed files, how many data files are not committed)."""
    files = committed_files(sink)
    rows: Counter[Row] = Counter()
    for path in files:
        for line in path.read_text().splitlines():
            if line.strip():
                rows[row(json.loads(line))] += 1
    written = {p.resolve() for p in sink.rglob("part-*") if "_spark_metadata" not in p.parts}
    return rows, len(written - {p.resolve() for p in files})


def read_upsert(servers: str, topic: str) -> tuple[Counter[Row], int]:
    """(the table an upsert-kafka topic holds: each key's latest value, a tombstone deleting it;
    how many records the topic has)."""
    from kafka import KafkaConsumer, TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=servers, enable_auto_commit=False)
    try:
        parts = [TopicPartition(topic, p) for p in sorted(consumer.partitions_for_topic(topic) or ())]
        consumer.assign(parts)
        consumer.seek_to_beginning(*parts)
        end = consumer.end_offsets(parts)
        table: dict[bytes, dict] = {}
        records = 0
        deadline = time.monotonic() + 60
        while any(consumer.position(p) < end[p] for p in parts):
            if time.monotonic() > deadline:
                raise TimeoutError(f"reading {topic} did not reach its end offsets {end}")
            for batch in consumer.poll(timeout_ms=1000).values():
                for rec in batch:
                    records += 1
                    if rec.value is None:
                        table.pop(rec.key, None)
                    else:
                        table[rec.key] = json.loads(rec.value)
    finally:
        consumer.close()
    return Counter(row(v) for v in table.values()), records


def compare(want: Counter[Row], got: Counter[Row]) -> tuple[int, int]:
    """(rows lost, rows duplicated or extra) between two multisets."""
    return sum((want - got).values()), sum((got - want).values())


# -- running and killing ---------------------------------------------------------------------------


@dataclass
class Kill:
    after: float  # seconds after the run started
    batches: int  # micro-batches the run had finished (its progress log)
    in_flight: tuple[int, ...]  # the queries with a batch planned (offsets/N) and not committed (commits/N)


@dataclass
class Killed:
    kills: list[Kill] = field(default_factory=list)
    seconds: float = 0.0  # wall time of all the runs, the final one included
    final: subprocess.CompletedProcess[str] | None = None


class RunFailed(Exception):
    pass


def cli(home: Path, sql: Path) -> list[str]:
    return [sys.executable, "-m", "repl.cli", "--home", str(home), "run", str(sql)]


def env() -> dict[str, str]:
    """This checkout first on the path, whatever sqlengine is installed."""
    out = os.environ.copy()
    out["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), out.get("PYTHONPATH")) if p)
    return out


def run(home: Path, sql: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cli(home, sql), cwd=REPO, env=env(), capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RunFailed(f"`{' '.join(cli(home, sql))}` exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc


def in_flight(checkpoint: Path) -> tuple[int, ...]:
    """The queries of a job whose latest planned batch is not committed: killed mid-batch."""
    out = []
    for q in sorted(checkpoint.glob("q*")):
        if not q.name[1:].isdigit():
            continue
        planned = [int(p.name) for p in (q / "offsets").glob("*") if p.name.isdigit()]
        done = [int(p.name) for p in (q / "commits").glob("*") if p.name.isdigit()]
        if planned and max(planned) > max(done, default=-1):
            out.append(int(q.name[1:]))
    return tuple(out)


def _progress(home: Path, before: set[str]) -> list[str]:
    """The queries of the micro-batches finished by the job this run started (its progress log),
    one entry a batch."""
    jobs = home / "jobs"
    out: list[str] = []
    for d in (d for d in jobs.iterdir() if d.name not in before) if jobs.exists() else ():
        log = d / "progress.jsonl"
        for line in log.read_text().splitlines() if log.exists() else ():
            try:
                out.append(json.loads(line)["query"])
            except (ValueError, KeyError):  # a line being written
                pass
    return out


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """SIGKILL the run's process group (the CLI and its JVM) and wait until none of it is left:
    a JVM still writing would race the next run."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise RunFailed(f"process group {proc.pid} still alive 30 s after SIGKILL")


def run_killed(home: Path, sql: Path, kills: int, rng: random.Random, max_delay: float = 2.0, queries: int = 1,
               patience: float = 60, timeout: float = 600, log: Path | None = None) -> Killed:
    """Run ``sql`` and kill it ``kills`` times, each a random 0..``max_delay`` s after every one
    of the job's ``queries`` has finished a micro-batch in this run (or ``patience`` s after the
    first did: a query may have no input left), so that each run moves every query on; then run
    it to the end. A run that ends by itself before it is killed ends the loop (fewer kills:
    the input was too small)."""
    result = Killed()
    checkpoint = home / "checkpoints" / PIPELINE
    start_all = time.monotonic()
    for n in range(kills):
        before = {d.name for d in (home / "jobs").iterdir()} if (home / "jobs").exists() else set()
        out = open(log or os.devnull, "a")  # noqa: SIM115 - closed below, after the process
        started = time.monotonic()
        first: float | None = None
        proc = subprocess.Popen(cli(home, sql), cwd=REPO, env=env(), stdout=out, stderr=out, text=True,
                                start_new_session=True)  # its own process group: the JVM dies with it
        try:
            while proc.poll() is None:
                done = _progress(home, before)
                if done and first is None:
                    first = time.monotonic()
                if len(set(done)) >= queries or (first is not None and time.monotonic() - first > patience):
                    break
                if time.monotonic() - started > timeout:
                    raise RunFailed(f"run {n + 1}: no micro-batch of every query in {timeout:.0f} s (log: {log})")
                time.sleep(0.05)
            time.sleep(rng.uniform(0, max_delay))
            if proc.poll() is not None:
                if proc.returncode != 0:
                    raise RunFailed(f"run {n + 1} exited {proc.returncode} before it was killed (log: {log})")
                break  # it ran to the end first
            batches = len(_progress(home, before))
            _kill_group(proc)
            result.kills.append(Kill(time.monotonic() - started, batches, in_flight(checkpoint)))
        finally:
            if proc.poll() is None:  # the driver itself failed or was interrupted: leave no job behind
                _kill_group(proc)
            out.close()
    result.final = run(home, sql)
    result.seconds = time.monotonic() - start_all
    return result
