"""Nexmark on Spark: each query that runs natively, through sqlengine and as the same job written
by hand in PySpark (bench/nexmark_hand.py), on the same machine in the same run.

    python bench/nexmark.py [--events 2000000] [--tps 10000] [--repeat 3] [q0 q1 ...]

Each (query, variant) runs in a fresh process (its own JVM): a warm-up job, then the measured job
over a bounded Nexmark stream (``events.num``), written to a sink that discards (blackhole /
Spark's noop). Each query runs ``--repeat`` rounds, sqlengine and hand-written alternating, so
that the machine's load drifts over both alike. Reported: the median events per second of each
variant (wall time from planning the job to the end of the input, Spark start excluded), the
JVM's peak resident memory, the ratio of the medians and each round's ratio. Results go to
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

NATIVE = ("q0", "q1", "q2", "q3", "q5", "q7", "q8", "q9", "q11", "q17", "q18", "q20", "q21", "q22", "q23")
FIXTURES = ROOT / "tests" / "fixtures" / "nexmark"


def _variables(events: int, tps: int) -> dict[str, str]:
    return {
        "TPS": str(tps), "EVENTS_NUM": str(events), "PERSON_PROPORTION": "1", "AUCTION_PROPORTION": "3",
        "BID_PROPORTION": "46", "NEXMARK_TABLE": "datagen",
    }


class PeakRSS:
    """Peak resident memory of this process's JVM children, sampled while a job runs."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            total = 0
            for child in self.me.children(recursive=True):
                try:
                    total += child.memory_info().rss
                except Exception:
                    pass
            self.peak = max(self.peak, total)

    def __enter__(self):  # type: ignore[no-untyped-def]
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:  # type: ignore[no-untyped-def]
        self._stop.set()
        self._thread.join()


def _session(work: Path):  # type: ignore[no-untyped-def]
    from sqlengine.session import create_session

    return create_session(conf={"spark.sql.ansi.enabled": "false"}, log_dir=work / "logs")


def _ddl(events: int, tps: int) -> str:
    gen = (FIXTURES / "ddl_gen.sql").read_text()
    gen = gen.replace("'next-event.rate' = '${TPS}',", "'next-event.rate' = '${TPS}', 'max-emit-speed' = 'true',")
    return gen + ";\n" + (FIXTURES / "ddl_views.sql").read_text() + ";\n"


def run_sqlengine(query: str, events: int, tps: int, work: Path) -> dict:
    from planner.script import parse_script
    from sqlengine.engine import Engine

    spark = _session(work)
    engine = Engine(home=work / "home", spark=spark, variables=_variables(events, tps))
    for stmt in parse_script(_ddl(events, tps)).statements:
        engine.plan(stmt)
    statements = parse_script((FIXTURES / f"{query}.sql").read_text()).statements
    for stmt in statements[:-1]:
        engine.plan(stmt)
    warm = parse_script("SELECT COUNT(*) FROM bid").statements[0]
    engine.start(engine.plan(warm)).wait()
    with PeakRSS() as mem:
        t0 = time.perf_counter()
        outcome = engine.plan(statements[-1])
        job = engine.start(outcome)
        job.wait()
        seconds = time.perf_counter() - t0
    if job.error_detail is not None:
        raise RuntimeError(str(job.error_detail).splitlines()[0])
    return {"seconds": seconds, "peak_rss": mem.peak}


def run_hand(query: str, events: int, tps: int, work: Path) -> dict:
    from pyspark.sql import functions as F

    import nexmark_hand
    from catalog import Column, TableDef
    from sqlengine.connectors import get_connector
    from sqlengine.connectors.base import SourceRequest

    spark = _session(work)
    cols = (
        ("event_type", "INT"),
        ("person", "ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>"),
        ("auction", "ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>"),
        ("bid", "ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>"),
    )
    table = TableDef(
        "datagen",
        tuple(Column(n, t) for n, t in cols),
        options={"connector": "nexmark", "events.num": str(events), "first-event.rate": str(tps), "max-emit-speed": "true"},
    )

    def events_df(n: int):  # type: ignore[no-untyped-def]
        t = table.with_options({**table.options, "events.num": str(n)})
        src = get_connector("nexmark").source(spark, SourceRequest(t, tuple(c for c, _ in cols), True, work))
        ev = src.df.withColumn(
            "dateTime",
            F.when(F.col("event_type") == 0, F.col("person.dateTime"))
            .when(F.col("event_type") == 1, F.col("auction.dateTime"))
            .otherwise(F.col("bid.dateTime"))
            .cast("timestamp"),  # Spark watermarks need its TIMESTAMP type
        )
        return ev.withWatermark("dateTime", "4 seconds")

    def run(df, mode: str, name: str) -> None:  # type: ignore[no-untyped-def]
        q = (
            df.writeStream.format("noop").outputMode(mode).option("checkpointLocation", str(work / name))
            .trigger(availableNow=True).start()
        )
        q.awaitTermination()

    warm = events_df(events)
    run(warm.filter("event_type = 2").groupBy().count(), "update", "warm")
    with PeakRSS() as mem:
        t0 = time.perf_counter()  # from building the job, as sqlengine's time is from planning it
        df, mode = nexmark_hand.QUERIES[query](lambda: events_df(events))
        run(df, mode, "measured")
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "peak_rss": mem.peak}


def one(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix=f"nexmark-{args.query}-{args.variant}-"))
    fn = run_sqlengine if args.variant == "sqlengine" else run_hand
    result = fn(args.query, args.events, args.tps, work)
    print("RESULT " + json.dumps(result), flush=True)
    os._exit(0)  # do not wait for Spark's shutdown hooks


def measure(query: str, variant: str, events: int, tps: int) -> dict:
    cmd = [sys.executable, __file__, "--one", query, variant, "--events", str(events), "--tps", str(tps)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            data = json.loads(line[7:])
            data["events_per_s"] = events / data["seconds"]
            return data
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    return {"error": tail[0][:200]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("queries", nargs="*")
    p.add_argument("--events", type=int, default=2_000_000)
    p.add_argument("--tps", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=3, help="rounds per query (the median is reported)")
    p.add_argument("--one", nargs=2, metavar=("QUERY", "VARIANT"))
    args = p.parse_args()
    if args.one:
        args.query, args.variant = args.one
        one(args)
        return
    rows = []
    for q in args.queries or NATIVE:
        ours_runs, hand_runs = [], []
        for _ in range(args.repeat):
            ours_runs.append(measure(q, "sqlengine", args.events, args.tps))
            hand_runs.append(measure(q, "hand", args.events, args.tps))
        ours, hand = _median(ours_runs), _median(hand_runs)
        ratio = ours["events_per_s"] / hand["events_per_s"] if "events_per_s" in ours and "events_per_s" in hand else None
        rounds = [a["events_per_s"] / b["events_per_s"] for a, b in zip(ours_runs, hand_runs) if "events_per_s" in a and "events_per_s" in b]
        rows.append((q, ours, hand, ratio, rounds))
        print(q, _fmt(ours), _fmt(hand), f"ratio {ratio:.2f}" if ratio else "", "rounds", " ".join(f"{r:.2f}" for r in rounds), flush=True)
    _write_doc(rows, args)


def _median(runs: list[dict]) -> dict:
    """The run of median speed (its memory with it); an error if every run failed."""
    ok = sorted((r for r in runs if "events_per_s" in r), key=lambda r: r["events_per_s"])
    if not ok:
        return runs[0]
    mid = dict(ok[len(ok) // 2])
    mid["peak_rss"] = max(r["peak_rss"] for r in ok)
    return mid


def _fmt(r: dict) -> str:
    if "error" in r:
        return f"error: {r['error']}"
    return f"{r['events_per_s']:,.0f} ev/s, peak {r['peak_rss'] / 1e6:,.0f} MB"


def _write_doc(rows, args) -> None:  # type: ignore[no-untyped-def]
    lines = [
        "# Nexmark on Spark: sqlengine vs hand-written PySpark",
        "",
        f"{args.events:,} events per run (first-event.rate {args.tps:,}/s of event time, generated as fast as",
        "possible), a sink that discards, one fresh JVM per run (local mode, 2 cores), a warm-up job first.",
        "Events/s is the measured job's events over its wall time (Spark start excluded); memory is the",
        "JVM's peak resident set while it ran (the driver heap is sized alike for both: a quarter of the",
        "machine's memory, at most 4 GiB). Both read one generator per table reference and write the same",
        "columns and types.",
        "",
        "Queries with an operator that waits on the watermark (windows, sessions, interval and window",
        "joins: q5, q7, q8, q11) end in sqlengine with a second phase that feeds an end-of-input marker",
        "through the query, so that the last windows are emitted and the result equals batch mode; the",
        "hand-written jobs skip it, and their last windows never come out.",
        "",
        f"Each query ran {args.repeat} rounds, sqlengine and hand-written alternating, each run in a fresh",
        "JVM; the table shows the median run of each variant, the ratio of the medians and, to show the",
        "noise of a 2-core machine, each round's ratio. Peak memory is the largest of the rounds.",
        "",
        "| query | sqlengine events/s | hand-written events/s | ratio | rounds | sqlengine peak MB | hand-written peak MB |",
        "|---|---|---|---|---|---|---|",
    ]
    for q, ours, hand, ratio, rounds in rows:
        def cell(r, key, scale=1.0, fmt="{:,.0f}"):  # type: ignore[no-untyped-def]
            return fmt.format(r[key] / scale) if key in r else "error"
        lines.append(
            f"| {q} | {cell(ours, 'events_per_s')} | {cell(hand, 'events_per_s')} | "
            f"{ratio:.2f} | {' '.join(f'{r:.2f}' for r in rounds)} | {cell(ours, 'peak_rss', 1e6)} | "
            f"{cell(hand, 'peak_rss', 1e6)} |" if ratio else
            f"| {q} | {cell(ours, 'events_per_s')} | {cell(hand, 'events_per_s')} | - | - | - | - |"
        )
    ratios = [r for _, _, _, r, _ in rows if r]
    if ratios:
        from statistics import geometric_mean

        lines += ["", f"Geometric mean ratio: {geometric_mean(ratios):.2f} (target ≥ 0.95)."]
    lines += [
        "", f"Reproduce: `python bench/nexmark.py --events {args.events} --tps {args.tps} --repeat {args.repeat}`",
        "",
        "## Other benchmarks",
        "",
        "- Lint speed against sqlfluff on the same files: [lint.md](lint.md#speed) (`bench/lint_speed.py`).",
        "- Shell start-up to prompt: [shell.md](shell.md) (`bench/shell_startup.py`).",
        "- The nexmark source alone: [connectors.md](connectors.md) (`bench/nexmark_source.py`).",
        "- State verdicts measured on Spark: [state-verdicts.md](state-verdicts.md) (`bench/state_verdicts.py`).",
        "",
    ]
    (ROOT / "docs" / "benchmarks.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
