"""Exactly-once recovery under kill -9: a failure-free run against a run killed N times.

    python bench/kill_recovery.py                 # 20 kills, every case; exit 1 if a row is lost or duplicated
    python bench/kill_recovery.py --kills 5 --orders 3000 --no-kafka

Every case is an INSERT of one statement set (tests/integration/kill.py): a TUMBLE window
aggregation and a keep-first deduplication, each from the filesystem source and from a Kafka
topic, into the filesystem sink; and from Kafka into upsert-kafka, a keep-first deduplication on
event time, running totals per user and the two largest orders per user (a Top-N: sqlengine's
changelog operator). The reference is the same file run once without a failure, into a home of
its own. Then the file runs in a second home and its process group (the CLI and its JVM) is
killed with SIGKILL, a random 0..--max-delay seconds after every query has finished a
micro-batch in that run, --kills times; then it runs to the end. Both homes' sinks are read as
their readers see them (committed files; an upsert topic as a table) and compared as multisets;
the reference is also compared with the result computed in Python. The Kafka broker is
scripts/kafka_broker.py, on 127.0.0.1, for this run only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import platform
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration import kill  # noqa: E402


def broker_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kafka_broker", ROOT / "scripts" / "kafka_broker.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kafka_broker"] = module
    spec.loader.exec_module(module)
    return module


def read(case: kill.Case, home: Path, servers: str | None, prefix: str) -> tuple[Counter[kill.Row], int]:
    """A case's result and its side figure: uncommitted files (filesystem), records (upsert-kafka)."""
    if case.sink == "fs":
        return kill.read_sink(home / "sinks" / case.name)
    assert servers is not None
    return kill.read_upsert(servers, f"{prefix}{case.name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--orders", type=int, default=5000, help="orders in the input (plus ~15%% redelivered)")
    parser.add_argument("--chunks", type=int, default=50, help="files (and Kafka micro-batches) the input comes in")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--max-delay", type=float, default=2.0, help="a kill comes 0..this many s after every query's first batch of the run")
    parser.add_argument("--no-kafka", action="store_true", help="the filesystem cases only (no broker)")
    parser.add_argument("--cases", nargs="*", help="these cases only (default: all)")
    parser.add_argument("--work", type=Path, help="working directory (default: a new temporary one, kept)")
    args = parser.parse_args()

    work = args.work or Path(tempfile.mkdtemp(prefix="sqlengine-kill-"))
    work.mkdir(parents=True, exist_ok=True)
    chunks = kill.make_orders(args.seed, args.orders, args.chunks)
    inputs = sum(len(c) for c in chunks)
    kill.write_files(work / "orders", chunks)
    cases = list(kill.FS_CASES) + ([] if args.no_kafka else list(kill.KAFKA_CASES))
    if args.cases:
        cases = [c for c in cases if c.name in args.cases]
        if not cases:
            parser.error(f"no such case; the cases: {', '.join(c.name for c in kill.FS_CASES + kill.KAFKA_CASES)}")
    print(f"{dt.date.today()}  {platform.node()}  {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"input: {args.orders} orders + {inputs - args.orders} redelivered = {inputs} records, {args.chunks} files "
          f"(one a micro-batch), seed {args.seed}; work dir {work}", flush=True)

    broker = None
    servers: str | None = None
    topic = "orders"
    if not args.no_kafka:
        (work / "broker").mkdir(exist_ok=True)
        broker = broker_module().Broker(partitions=2, workdir=work / "broker").start()
        servers = broker.bootstrap
        kill.produce(servers, topic, chunks, partitions=2)
        print(f"kafka: {servers}, topic {topic} (2 partitions, {-(-inputs // args.chunks)} records a micro-batch)", flush=True)
    try:
        homes = {"reference": work / "reference", "killed": work / "killed"}
        for label, home in homes.items():
            (home / "job.sql").parent.mkdir(parents=True, exist_ok=True)
            (home / "job.sql").write_text(kill.script(
                cases, sinks=home / "sinks", source_dir=work / "orders", servers=servers, topic=topic,
                topic_prefix=f"{label}-", per_trigger=-(-inputs // args.chunks)))
        t0 = time.monotonic()
        kill.run(homes["reference"], homes["reference"] / "job.sql")
        reference_s = time.monotonic() - t0
        print(f"reference run: {reference_s:.0f} s", flush=True)
        killed = kill.run_killed(homes["killed"], homes["killed"] / "job.sql", args.kills, random.Random(args.seed),
                                 args.max_delay, queries=len(cases), log=homes["killed"] / "runs.log")
        print(f"killed run: {len(killed.kills)} kills (SIGKILL to the CLI's process group), then to the end; "
              f"{killed.seconds:.0f} s of runs in all", flush=True)
        for n, k in enumerate(killed.kills, 1):
            print(f"  kill {n:2d}: {k.after:5.1f} s into its run, after {k.batches} batches; "
                  f"mid-batch: {', '.join(cases[q].name for q in k.in_flight) or '-'}")
        bad = report(cases, chunks, homes, killed, servers)
    finally:
        if broker is not None:
            broker.stop()
    return 1 if bad else 0


def report(cases: list[kill.Case], chunks: list[list[dict]], homes: dict[str, Path], killed: kill.Killed, servers: str | None) -> bool:
    print()
    print("| case | expected | got | lost | duplicated | kills (mid-batch) | reference = computed | note |")
    print("|---|---|---|---|---|---|---|---|")
    bad = False
    for i, case in enumerate(cases):
        want, ref_extra = read(case, homes["reference"], servers, "reference-")
        got, extra = read(case, homes["killed"], servers, "killed-")
        lost, dup = kill.compare(want, got)
        computed = kill.expected(case.query, chunks)
        mid = sum(1 for k in killed.kills if i in k.in_flight)
        if case.sink == "fs":
            note = f"{extra} uncommitted files ignored"
        else:
            note = f"{extra} records in the topic ({ref_extra} without kills)"
        bad |= bool(lost or dup) or want != computed
        print(f"| {case.name} | {sum(want.values())} | {sum(got.values())} | {lost} | {dup} | "
              f"{len(killed.kills)} ({mid}) | {'yes' if want == computed else 'NO'} | {note} |")
    print()
    print("FAILED: rows lost or duplicated" if bad else "OK: no row lost, none duplicated")
    return bad


if __name__ == "__main__":
    sys.exit(main())
