"""How fast Spark reads the Nexmark bid files of bench/flink_compare.py, apart from any query: a
batch scan of bid.<format> that hashes the columns read, at two sizes, the marginal rate from their
difference (local[2], the session sqlengine's jobs get: one JVM, warmed by a first pass that is not
reported). Tells the share of a query's time that is the file format's, for the columns it reads.

    python bench/scan_speed.py [--events 500000] [--formats csv,json,parquet] [--passes 3]

It reads the files flink_compare.py wrote under --data (run that first, with the same --events).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

COLUMNS = "auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP, extra STRING"
READS = {  # what is read: q5's two columns, and every column
    "auction, dateTime": ["auction", "dateTime"],
    "all seven": ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"],
}


def scan_seconds(spark, path: Path, fmt: str, columns: list[str]) -> float:
    from pyspark.sql import functions as F

    df = spark.read.format(fmt).schema(COLUMNS).load(str(path))
    t0 = time.perf_counter()
    df.select(*columns).agg(*[F.max(F.hash(F.col(c))) for c in columns]).collect()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=500_000)
    ap.add_argument("--formats", default="csv,json,parquet")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "sqlengine-flink-compare")
    args = ap.parse_args()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
             .config("spark.sql.shuffle.partitions", "2").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    sizes = (args.events, 4 * args.events)
    print(f"| format | columns read | s ({sizes[0]:,} events) | s ({sizes[1]:,}) | marginal bids/s |")
    print("|---|---|---|---|---|")
    for fmt in args.formats.split(","):
        paths = [args.data / fmt / str(n) / f"bid.{fmt}" for n in sizes]
        if not all(p.exists() for p in paths):
            sys.exit(f"{paths[0].parent.parent}: no files for these sizes; run bench/flink_compare.py --events {args.events} --formats {fmt} first")
        bids = [spark.read.format(fmt).schema(COLUMNS).load(str(p)).count() for p in paths]
        for label, columns in READS.items():
            scan_seconds(spark, paths[1], fmt, columns)  # the warming pass
            small = median(scan_seconds(spark, paths[0], fmt, columns) for _ in range(args.passes))
            large = median(scan_seconds(spark, paths[1], fmt, columns) for _ in range(args.passes))
            rate = (bids[1] - bids[0]) / (large - small) if large > small else float("nan")
            print(f"| {fmt} | {label} | {small:.2f} | {large:.2f} | {rate:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
