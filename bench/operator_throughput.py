"""The Python side of two changelog operators, alone (no Spark): rows per second through
``Operator.apply`` on Nexmark-like bids, one bucket's share of a run's rows in micro-batches.

    python bench/operator_throughput.py [--rows 1840000] [--buckets 64] [--batches 4] [--runs 3]

- ``max per auction``: Nexmark q4's MAX(price) GROUP BY auction over an insert-only input, through
  the per-key folding (Arrow aggregates each batch by key first) and through the row-by-row path,
  in the same run;
- ``top 10 per auction``: Nexmark q19's ROW_NUMBER() <= 10 per auction ORDER BY price DESC, with
  the rank number (AppendFastStrategy), changes counted.
Medians of ``--runs``; figures move with the machine's load, the ratio of the two MAX paths less.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from statistics import median

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlengine.changelog.aggregate import AggCallSpec, GroupAggregate
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.topn import APPEND_FAST, TopN

AUCTIONS_PER_BID = 3 / 46  # Nexmark's proportions: 3 auctions to 46 bids


def bids(rows: int, seed: int = 1) -> pa.Table:
    rnd = random.Random(seed)
    auctions = max(1, int(rows * AUCTIONS_PER_BID))
    ids = [rnd.randrange(auctions) for _ in range(rows)]
    return pa.table({
        "kind": pa.array([INSERT] * rows, pa.int8()),
        "auction": pa.array(ids, pa.int64()),
        "bidder": pa.array([rnd.randrange(10**5) for _ in range(rows)], pa.int64()),
        "price": pa.array([rnd.randrange(10**6) for _ in range(rows)], pa.int64()),
        "channel": pa.array(["Google"] * rows),
        "dateTime": pa.array(list(range(rows)), pa.timestamp("ms")),
    })


def timed(work, batches: list[pa.Table], runs: int) -> tuple[float, int]:
    """Median seconds of ``work`` over the batches (a fresh state each run), and its changes."""
    seconds, changes = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        changes = work(batches)
        seconds.append(time.perf_counter() - t0)
    return median(seconds), changes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_840_000, help="bids in the run (all buckets)")
    ap.add_argument("--buckets", type=int, default=64, help="the job's buckets: one bucket's share is timed")
    ap.add_argument("--batches", type=int, default=4, help="micro-batches the bucket's rows come in")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    share = bids(args.rows // args.buckets)
    step = -(-share.num_rows // args.batches)
    batches = [share.slice(i, step) for i in range(0, share.num_rows, step)]

    out = pa.schema([("auction", pa.int64()), ("m", pa.int64())])
    group = GroupAggregate(1, [AggCallSpec("MAX")], [pa.int64()], False, out)

    def grouped(folded: bool):
        def work(parts: list[pa.Table]) -> int:
            state, n = group.new_state(), 0
            for p in parts:
                b = p.select(["kind", "auction", "price"])
                n += len(group.apply(state, [b], 0) if folded else group._apply(state, b, 0))
            return n
        return work

    types = [f.type for f in share.schema][1:]
    top_out = pa.schema([pa.field("kind", pa.int8()), *list(share.schema)[1:], pa.field("rn", pa.int64())])
    top = TopN([0], [(2, True)], types, 10, top_out, rank_position=len(types), strategy=APPEND_FAST)

    def top10(parts: list[pa.Table]) -> int:
        state, n = top.new_state(), 0
        for p in parts:
            n += len(top.apply(state, [p], 0))
        return n

    rows = share.num_rows
    print(f"{rows:,} rows (1/{args.buckets} of {args.rows:,}) in {len(batches)} batches, median of {args.runs} runs")
    folded, _ = timed(grouped(True), batches, args.runs)
    by_row, _ = timed(grouped(False), batches, args.runs)
    print(f"max per auction, folded by key:  {rows / folded:12,.0f} rows/s")
    print(f"max per auction, row by row:     {rows / by_row:12,.0f} rows/s   (folded {by_row / folded:.1f}x faster)")
    seconds, changes = timed(top10, batches, args.runs)
    print(f"top 10 per auction (rank shown): {rows / seconds:12,.0f} rows/s   ({changes:,} changes)")


if __name__ == "__main__":
    main()
