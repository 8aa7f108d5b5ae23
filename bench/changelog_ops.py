"""Changelog operators against Spark's native operator of the nearest shape, on the same Nexmark
bid stream, in one JVM, in the same run.

    python bench/changelog_ops.py [--events 1000000] [--runs 3] [--set KEY=VALUE ...] [--unbounded [N]] [pair ...]

Each pair is a query that runs as a changelog operator (sqlengine's, in transformWithStateInPandas)
and the nearest query Spark runs natively (e.g. Top-3 per auction vs Top-1 per auction), both
through sqlengine into a blackhole sink over a bounded stream of ``--events`` Nexmark events
(``--set`` sets a session setting for both, e.g. ``sqlengine.changelog.jvm=false`` runs the
changelog operators that have a JVM twin in Python). One
warm-up run each, then ``--runs`` rounds, alternating which goes first; reported: the median
events per second of each and their ratio (the target is 0.3 or more). Nexmark q4 and q19 (which
run only as changelog operators) are reported on their own. ``--unbounded``: the source stays open
after its events ('keep-alive'), so each job is unbounded, as a continuous query is (Spark's
processing-time timeouts run, a state TTL releases idle keys on them), and is timed until it has
read them all, then stopped (``N``: events a micro-batch, default 1,000,000).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from nexmark import _ddl, _session, sqlengine_runner, statements_runner  # noqa: E402

SINK = "CREATE TABLE discard ({columns}) WITH ('connector' = 'blackhole')"

# name: (changelog query, its sink columns, native query, its sink columns, what is compared)
PAIRS: dict[str, tuple[str, str, str, str, str]] = {
    "top3": (
        "SELECT auction, bidder, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn "
        "FROM bid) WHERE rn <= 3",
        "auction BIGINT, bidder BIGINT, price BIGINT",
        "SELECT auction, bidder, price FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rn "
        "FROM bid) WHERE rn = 1",
        "auction BIGINT, bidder BIGINT, price BIGINT",
        "Top-3 per auction (changelog, append-only input) vs Top-1 per auction (native)",
    ),
    "agg_of_agg": (
        "SELECT c, COUNT(*) AS n FROM (SELECT auction, COUNT(*) AS c FROM bid GROUP BY auction) GROUP BY c",
        "c BIGINT, n BIGINT",
        "SELECT auction, COUNT(*) AS c FROM bid GROUP BY auction",
        "auction BIGINT, c BIGINT",
        "COUNT per count of bids (changelog, both aggregations) vs COUNT per auction (native)",
    ),
    "distinct_agg": (
        "SELECT auction, COUNT(DISTINCT bidder) AS b, SUM(DISTINCT price) AS p FROM bid GROUP BY auction HAVING COUNT(*) > 0",
        "auction BIGINT, b BIGINT, p BIGINT",
        "SELECT auction, COUNT(DISTINCT bidder) AS b, SUM(DISTINCT price) AS p FROM bid GROUP BY auction",
        "auction BIGINT, b BIGINT, p BIGINT",
        "COUNT and SUM of the distinct bidders and prices per auction with a HAVING (changelog) vs without (native: "
        "Spark's aggregation of the distinct values)",
    ),
    "ttl_agg": (
        "SELECT /*+ STATE_TTL('bid' = '1 h') */ auction, COUNT(*) AS c, MAX(price) AS m FROM bid GROUP BY auction",
        "auction BIGINT, c BIGINT, m BIGINT",
        "SELECT auction, COUNT(*) AS c, MAX(price) AS m FROM bid GROUP BY auction",
        "auction BIGINT, c BIGINT, m BIGINT",
        "COUNT, MAX per auction with a state TTL (changelog) vs without (native)",
    ),
    "over_range": (
        "SELECT auction, price, MAX(price) OVER (PARTITION BY auction ORDER BY `dateTime` "
        "RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS top10s FROM bid",
        "auction BIGINT, price BIGINT, top10s BIGINT",
        "SELECT auction, window_start, MAX(price) AS top FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), "
        "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
        "auction BIGINT, window_start TIMESTAMP(3), top BIGINT",
        "MAX over the 10 s before each bid per auction (changelog OVER, waits for the watermark) vs MAX per 10 s tumbling window (native)",
    ),
    "udaf_group": (
        "SELECT auction, wavg(price, bidder) AS a FROM bid GROUP BY auction",
        "auction BIGINT, a DOUBLE",
        "SELECT auction, SUM(price * bidder) / SUM(bidder) AS a FROM bid GROUP BY auction",
        "auction BIGINT, a BIGINT",
        "a Python aggregate function per auction (changelog) vs the same weighted average with built-ins (native)",
    ),
    "udaf_tumble": (
        "SELECT auction, window_start, wavg(price, bidder) AS a FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), "
        "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
        "auction BIGINT, window_start TIMESTAMP(3), a DOUBLE",
        "SELECT auction, window_start, SUM(price * bidder) / SUM(bidder) AS a FROM TABLE(TUMBLE(TABLE bid, "
        "DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
        "auction BIGINT, window_start TIMESTAMP(3), a BIGINT",
        "a Python aggregate function per auction and 10 s window (changelog, event time) vs built-ins (native)",
    ),
    "temporal_join": (
        "SELECT B.auction, B.price, A.seller FROM bid B JOIN latest_auction FOR SYSTEM_TIME AS OF B.`dateTime` AS A "
        "ON B.auction = A.id",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "SELECT B.auction, B.price, A.seller FROM bid B JOIN auction A ON B.auction = A.id "
        "AND B.`dateTime` BETWEEN A.`dateTime` AND A.`dateTime` + INTERVAL '10' SECOND",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "each bid with its auction's version at its time (changelog temporal join on a versioned view, waits for the "
        "watermark) vs each bid with its auction opened in the 10 s before (native interval join)",
    ),
    "match": (
        "SELECT auction, rise FROM rises",
        "auction BIGINT, rise BIGINT",
        "SELECT auction, MAX(price) - MIN(price) AS rise FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(`dateTime`), "
        "INTERVAL '10' SECOND)) GROUP BY auction, window_start, window_end",
        "auction BIGINT, rise BIGINT",
        "a rise after a bid per auction (changelog MATCH_RECOGNIZE, waits for the watermark) vs the spread of prices "
        "per auction and 10 s window (native)",
    ),
    "match_interval_join": (
        "SELECT R.auction, R.rise, B.price FROM rises R JOIN bid B ON R.auction = B.auction "
        "AND B.`dateTime` BETWEEN R.rt AND R.rt + INTERVAL '2' SECOND",
        "auction BIGINT, rise BIGINT, price BIGINT",
        "SELECT A.auction, A.price, B.price FROM bid A JOIN bid B ON A.auction = B.auction "
        "AND B.`dateTime` BETWEEN A.`dateTime` AND A.`dateTime` + INTERVAL '2' SECOND",
        "auction BIGINT, price BIGINT, price2 BIGINT",
        "the bids of the 2 s after each rise (MATCH_RECOGNIZE, then the changelog interval join on MATCH_ROWTIME()) vs "
        "the bids of the 2 s after each bid (native interval join)",
    ),
    "left_join": (
        "SELECT B.auction, B.price, A.seller FROM bid B LEFT JOIN auction A ON B.auction = A.id",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "SELECT B.auction, B.price, A.seller FROM bid B JOIN auction A ON B.auction = A.id",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "regular LEFT JOIN (changelog) vs inner join (native), no time bound",
    ),
    "left_join_conditions": (
        "SELECT B.auction, B.price, A.seller FROM bid B LEFT JOIN auction A "
        "ON B.auction = A.id AND B.price > 1000 AND A.category = 10",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "SELECT B.auction, B.price, A.seller FROM bid B JOIN auction A ON B.auction = A.id AND B.price > 1000 AND A.category = 10",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "regular LEFT JOIN with a condition on each side's fields (changelog) vs the inner join (native)",
    ),
    "left_join_residual": (
        "SELECT B.auction, B.price, A.seller FROM bid B LEFT JOIN auction A ON B.auction = A.id AND B.price > A.reserve",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "SELECT B.auction, B.price, A.seller FROM bid B JOIN auction A ON B.auction = A.id AND B.price > A.reserve",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "regular LEFT JOIN with a condition on both sides' fields (changelog) vs the inner join (native)",
    ),
    "left_join_ttl": (
        "SELECT /*+ STATE_TTL('B' = '1 h', 'A' = '1 h') */ B.auction, B.price, A.seller FROM bid B LEFT JOIN auction A ON B.auction = A.id",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "SELECT B.auction, B.price, A.seller FROM bid B JOIN auction A ON B.auction = A.id",
        "auction BIGINT, price BIGINT, seller BIGINT",
        "regular LEFT JOIN under a state TTL of 1 h on both sides (changelog) vs the inner join (native)",
    ),
}


# the Python aggregate function of the udaf pairs (examples/udf/nexmark_udfs.py)
FUNCTIONS = (f"SET 'python.files' = '{ROOT / 'examples' / 'udf' / 'nexmark_udfs.py'}';\n"
             "CREATE TEMPORARY FUNCTION wavg AS 'nexmark_udfs.WeightedAvg' LANGUAGE PYTHON;\n")
# the views of the temporal join and MATCH_RECOGNIZE pairs: each auction's latest version (Flink's
# versioned view), and each rise in price right after a bid per auction with its MATCH_ROWTIME()
VIEWS = (
    "CREATE TEMPORARY VIEW latest_auction AS SELECT id, seller, `dateTime` FROM (SELECT *, ROW_NUMBER() OVER "
    "(PARTITION BY id ORDER BY `dateTime` DESC) AS rn FROM auction) WHERE rn = 1;\n"
    "CREATE TEMPORARY VIEW rises AS SELECT * FROM bid MATCH_RECOGNIZE (PARTITION BY auction ORDER BY `dateTime` "
    "MEASURES UP.price - START_ROW.price AS rise, MATCH_ROWTIME() AS rt ONE ROW PER MATCH "
    "AFTER MATCH SKIP PAST LAST ROW PATTERN (START_ROW UP) DEFINE UP AS UP.price > START_ROW.price);\n"
)


def runner(spark, query: str, columns: str, events: int, work: Path, tag: str, settings: str = "",
           unbounded: int | None = None):
    """``unbounded``: the job is unbounded, that many events a micro-batch."""
    script = f"{settings}{FUNCTIONS}{VIEWS}{SINK.format(columns=columns)};\nINSERT INTO discard {query};"
    if unbounded:
        return unbounded_runner(spark, script, events, work / tag, unbounded)
    return statements_runner(spark, script, events, 10_000, work / tag)


def unbounded_runner(spark, script: str, events: int, work: Path, batch_rows: int = 1_000_000):
    """``once(i)``: as statements_runner, over a source that stays open after its ``events``
    (``batch_rows`` of them a micro-batch): the time until every read of it has delivered them (as
    the job's progress reports), then the job is stopped."""
    ddl = _ddl(events, 10_000).replace("'events.num' = '${EVENTS_NUM}',",
                                       f"'events.num' = '${{EVENTS_NUM}}', 'keep-alive' = 'true', 'rows-per-batch' = '{batch_rows}',")

    def delivered(job) -> None:
        expected = events * sum(len(p.translated.sources) for p in job.pipelines)
        while sum(s.input_rows for s in list(job.history)) < expected:
            if job.error_detail is not None:
                raise RuntimeError(str(job.error_detail).splitlines()[0])
            time.sleep(0.02)

    return statements_runner(spark, script, events, 10_000, work, ddl=ddl, wait=delivered)


def measure(spark, variants: dict, runs: int) -> dict[str, list[float]]:
    jvm = spark.sparkContext._jvm

    def run(once, i: int) -> float:
        seconds = once(i)
        jvm.org.apache.spark.sql.execution.streaming.state.StateStore.stop()  # as bench/nexmark.py
        jvm.java.lang.System.gc()
        return seconds

    for once in variants.values():
        run(once, 0)
    times: dict[str, list[float]] = {name: [] for name in variants}
    order = list(variants.items())
    for i in range(1, runs + 1):
        for name, once in order if i % 2 else order[::-1]:
            times[name].append(run(once, i))
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a session setting for every run")
    ap.add_argument("--unbounded", type=int, nargs="?", const=1_000_000, default=None, metavar="EVENTS_PER_BATCH",
                    help="the pairs as unbounded jobs (the source stays open; that many events a micro-batch, default "
                         "1,000,000), timed until read through; q4 and q19 stay bounded")
    ap.add_argument("pairs", nargs="*", help=f"any of {', '.join(PAIRS)}, q4, q19 (default: all)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="changelog-bench-"))
    spark = _session(work)
    chosen = args.pairs or [*PAIRS, "q4", "q19"]
    settings = "".join("SET '{}' = '{}';\n".format(*kv.split("=", 1)) for kv in args.set)
    print(f"{args.events} events, {args.runs} runs each after a warm-up; median events/s")
    print("| pair | changelog events/s | native events/s | ratio | compared |\n|---|---|---|---|---|")
    for name in chosen:
        if name in PAIRS:
            cq, cc, nq, nc, what = PAIRS[name]
            times = measure(
                spark,
                {"changelog": runner(spark, cq, cc, args.events, work, f"{name}-c", settings, args.unbounded),
                 "native": runner(spark, nq, nc, args.events, work, f"{name}-n", settings, args.unbounded)},
                args.runs,
            )
            c, n = args.events / median(times["changelog"]), args.events / median(times["native"])
            print(f"| {name} | {c:,.0f} | {n:,.0f} | {c / n:.2f} | {what} |", flush=True)
        else:
            times = measure(spark, {"q": sqlengine_runner(spark, name, args.events, 10_000, work / name)}, args.runs)
            print(f"| {name} | {args.events / median(times['q']):,.0f} | | | Nexmark {name} (changelog operators only) |", flush=True)


if __name__ == "__main__":
    main()
