"""Events per second of the nexmark source: a bounded stream of N events (default 1,000,000)
run to its end with Trigger.AvailableNow, once into a plain count and once into Spark's noop sink
(every field generated). Prints one line per measurement: events per wall-clock second, and per
second of CPU the JVM used (steadier on a shared machine; with C cores busy, wall ~ CPU / C).

    python bench/nexmark_source.py [--events N] [--master local[*]] [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from catalog import Column, TableDef
from sqlengine.connectors import SourceRequest, get_connector
from sqlengine.session import create_session, stop_session

COLUMNS = (
    Column("event_type", "INT"),
    Column(
        "person",
        "ROW<id BIGINT, name STRING, emailAddress STRING, creditCard STRING, city STRING, "
        "state STRING, `dateTime` TIMESTAMP(3), extra STRING>",
    ),
    Column(
        "auction",
        "ROW<id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT, "
        "`dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, "
        "extra STRING>",
    ),
    Column(
        "bid",
        "ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
        "`dateTime` TIMESTAMP(3), extra STRING>",
    ),
)


def jvm_cpu_seconds() -> float:
    import psutil
    from pyspark import SparkContext

    times = psutil.Process(SparkContext._gateway.proc.pid).cpu_times()
    return times.user + times.system


def run(spark, events: int, work: Path, how: str) -> tuple[float, float]:
    from pyspark.sql import functions as F

    table = TableDef("bench", COLUMNS, options={"connector": "nexmark", "events.num": str(events)})
    request = SourceRequest(table, tuple(c.name for c in COLUMNS), True, work)
    result = get_connector("nexmark").source(spark, request)
    df = result.df
    if how == "count":
        # a count that still needs every event's type; Spark prunes the unused structs
        df = df.groupBy().agg(F.count("event_type").alias("n"))
        writer = df.writeStream.outputMode("complete").format("memory").queryName(f"c{time.time_ns()}")
    else:
        writer = df.writeStream.format("noop")
    start, cpu_start = time.perf_counter(), jvm_cpu_seconds()
    query = writer.trigger(availableNow=True).option(
        "checkpointLocation", str(work / f"ck-{how}-{time.time_ns()}")
    ).start()
    query.awaitTermination()
    elapsed, cpu = time.perf_counter() - start, jvm_cpu_seconds() - cpu_start
    rows = query.lastProgress["numInputRows"] if query.lastProgress else None
    if rows != events:
        raise SystemExit(f"expected {events} input rows, the query read {rows}")
    return events / elapsed, events / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--master", default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        spark = create_session(master=args.master, log_dir=work / "logs")
        cores = spark.sparkContext.defaultParallelism
        run(spark, min(args.events, 100_000), work, "all")  # warm up the JVM
        for how in ("count", "all"):
            runs = [run(spark, args.events, work, how) for _ in range(args.runs)]
            wall = sorted(r[0] for r in runs)
            cpu = sorted(r[1] for r in runs)
            label = "count(event_type)" if how == "count" else "all fields (noop sink)"
            print(
                f"nexmark source, {args.events:,} events, {cores} cores, {label}: "
                f"best {wall[-1]:,.0f} events/s (median {wall[len(wall) // 2]:,.0f}); "
                f"{cpu[-1]:,.0f} events per JVM CPU-second"
            )
        stop_session()


if __name__ == "__main__":
    main()
