"""The state-verdict harness: a query's planned verdict per stateful operator (bounded or
unbounded) against the state Spark actually keeps.

Each case runs once on 4N input events, fed as one file per micro-batch, so the watermark
advances batch by batch as on a live stream; its state after the first N events (and 2N in
bench/state_verdicts.py) is that of the batches up to the one that read them (run_case). For every Spark state operator we take the peak
``numRowsTotal`` over the batches before the end of input; a bounded operator's peak must stay
flat as the input grows (peak(4N) < 1.6 × peak(N)), an unbounded one must grow
(peak(4N) > 2.5 × peak(N)). Anything in between counts as a disagreement. An operator that
kept no state at any size is no evidence either way (its state lives within one micro-batch):
it never counts as agreeing, and a case whose every operator is no evidence proves nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from planner.analysis.analyze import Analysis
from planner.analysis.estimate_figures import plateau
from planner.logical.joins import Join
from planner.logical.operators import Deduplicate, GroupAggregate, Node, TopN, WindowAggregate
from planner.statements.script import parse_script
from sqlengine.progress import BUCKETS, JVM_KEYS, KEYS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "nexmark"
NO_EVIDENCE = "no evidence"
BOUNDED_MAX = 1.6
UNBOUNDED_MIN = 2.5

NEXMARK_COLUMNS = """
    event_type int,
    person ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>,
    auction ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>,
    bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>
"""
DATETIME = """
    `dateTime` AS CASE WHEN event_type = 0 THEN person.`dateTime` WHEN event_type = 1 THEN auction.`dateTime` ELSE bid.`dateTime` END,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
"""


@dataclass(frozen=True)
class Case:
    name: str
    sql: str  # the query (a SELECT or INSERT body's SELECT), over the Nexmark views
    note: str = ""
    warmup: int = 0  # generator events dropped before the measured ones (see WARMUP)


@dataclass
class Measured:
    case: Case
    planned: list[tuple[str, str]]  # (operator kind, verdict)
    spark_ops: list[str] = field(default_factory=list)
    peaks: dict[int, list[int]] = field(default_factory=dict)  # events -> peak rows per operator
    agree: bool | None = None
    detail: str = ""
    spark_verdicts: list[str] = field(default_factory=list)  # per Spark operator
    families: list[str | None] = field(default_factory=list)  # per planned operator
    peak_bytes: dict[int, list[int]] = field(default_factory=dict)  # events -> peak memoryUsedBytes per operator
    estimates: list[tuple[float | None, float | None, bool]] = field(default_factory=list)  # per planned: (entries, bytes, upper bound)
    matched: list[int | None] = field(default_factory=list)  # per planned operator: its Spark operator

    @property
    def no_evidence(self) -> list[str]:
        """The Spark operators that kept no state at any size."""
        return [op for op, v in zip(self.spark_ops, self.spark_verdicts, strict=True) if v == NO_EVIDENCE]


def generator_activity(rate: int) -> str:
    """How the generator draws auctions, bidders and sellers (the nexmark connector's model of
    it), declared as statistics for the files it wrote, as a user who knows their ids would."""
    from catalog import TableDef
    from catalog.connectors.nexmark import ACTIVE_IDS, Nexmark

    table = TableDef("gen", (), options={"connector": "nexmark", "first-event.rate": str(rate)})
    out = ""
    for path in ACTIVE_IDS:
        act = Nexmark().column_activity(table, path)
        assert act is not None
        out += (f"'stats.active.{path}' = '{act.active:g}', 'stats.new-per-second.{path}' = '{act.new_per_second:g}', "
                f"'stats.hot-share.{path}' = '{act.hot_share:g}', 'stats.hot-moves-per-second.{path}' = '{act.hot_moves_per_second:g}', ")
    return out


def generator_lengths() -> str:
    """The generator's average string lengths (the nexmark connector's model of them), declared
    for the files it wrote."""
    from catalog import TableDef
    from catalog.connectors.nexmark import STRING_LENGTHS, Nexmark

    table = TableDef("gen", (), options={"connector": "nexmark"})
    paths = [f"{kind}.{name}" for kind, names in STRING_LENGTHS.items() for name in (*names, "extra")]
    return "".join(f"'stats.avg-length.{p}' = '{Nexmark().column_avg_length(table, p)}', " for p in paths)


def nexmark_ddl(path: Path, rate: int | None = None, per_file: int | None = None) -> str:
    """The Nexmark table over the written events, and the Nexmark views; ``rate``, events per
    second of event time, and ``per_file``, events per file (one file a micro-batch), are
    declared for the state estimates."""
    stats = f"'stats.rows-per-second' = '{rate}', " if rate else ""
    stats += f"'stats.rows-per-file' = '{per_file}', " if per_file else ""
    stats += generator_activity(rate) + generator_lengths() if rate else ""
    return (
        # the partitions the harness's Spark session runs with (tests/conftest.py): the stores counted
        "SET 'spark.sql.shuffle.partitions' = '2';\n"
        f"CREATE TABLE datagen ({NEXMARK_COLUMNS}, {DATETIME}) WITH ("
        f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'json', "
        f"'source.max-files-per-trigger' = '1', {stats}"
        # the generator's fixed domains, declared as statistics (as a user would for a file)
        "'stats.distinct.event_type' = '3', 'stats.values.event_type' = '0: 0.02, 1: 0.06, 2: 0.92', "
        "'stats.distinct.auction.category' = '5', "
        "'stats.distinct.person.state' = '6', 'stats.distinct.person.city' = '10');\n"
        + (FIXTURES / "ddl_views.sql").read_text().replace("${NEXMARK_TABLE}", "datagen")
        + ";\n"
    )


# The generator's warm-up: Nexmark draws bidders and sellers from the people generated so far, a
# pool whose *active* part grows until about 50,000 events. State bounded by the number of active
# keys (a session per bidder, q11) grows during the warm-up and plateaus after it, so such cases
# are measured on the events after it (Case.warmup). State that grows with the keys ever seen
# grows from the start, fast during the warm-up and at one new person per 50 events after it:
# those cases are measured from the start, where N..4N events show the growth.
WARMUP = 50_000


def write_events(spark, directory: Path, events: int, per_file: int, rate: int, warmup: int = 0) -> None:
    """``events`` Nexmark events from our generator (batch) after ``warmup`` events that are
    generated and dropped, one JSON file per ``per_file`` events, with increasing modification
    times so the file source reads them in event order."""
    from pyspark.sql import functions as F

    from catalog import Column, TableDef
    from sqlengine.connectors import get_connector
    from sqlengine.connectors.base import SourceRequest

    if directory.exists():
        shutil.rmtree(directory)
    staging = directory.parent / (directory.name + "-staging")
    shutil.rmtree(staging, ignore_errors=True)
    cols = [Column(n, t) for n, t in (
        ("event_type", "INT"),
        ("person", "ROW<id BIGINT, name VARCHAR, emailAddress VARCHAR, creditCard VARCHAR, city VARCHAR, state VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>"),
        ("auction", "ROW<id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT, `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR>"),
        ("bid", "ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, `dateTime` TIMESTAMP(3), extra VARCHAR>"),
    )]
    table = TableDef("gen", tuple(cols), options={"connector": "nexmark", "events.num": str(warmup + events), "first-event.rate": str(rate)})
    src = get_connector("nexmark").source(spark, SourceRequest(table, tuple(c.name for c in cols), False, staging))
    time_col = F.coalesce(F.col("person.dateTime"), F.col("auction.dateTime"), F.col("bid.dateTime"))
    rn = F.row_number().over(_order_window(time_col))
    df = src.df.withColumn("__rn", rn).where(F.col("__rn") > warmup)
    df = df.withColumn("__file", F.floor((F.col("__rn") - warmup - 1) / per_file)).drop("__rn")
    df.write.partitionBy("__file").json(str(staging))
    directory.mkdir(parents=True)
    parts = sorted((int(p.name.split("=")[1]), p) for p in staging.iterdir() if p.name.startswith("__file="))
    now = time.time() - len(parts) - 10
    for i, (k, part) in enumerate(parts):
        for f in part.glob("*.json"):
            target = directory / f"events-{k:05d}.json"
            shutil.move(str(f), target)
            os.utime(target, (now + i, now + i))
    shutil.rmtree(staging, ignore_errors=True)


def _order_window(time_col):
    from pyspark.sql import Window

    return Window.orderBy(time_col)


def family(kind: str) -> str:
    return {
        "stateStoreSave": "agg",
        "symmetricHashJoin": "join",
        "dedupe": "dedup",
        "sessionWindowStateStoreSaveExec": "agg",
        KEYS: "changelog",  # sqlengine's operators, their state counted in keys
        BUCKETS: "changelog",
        JVM_KEYS: "changelog",
    }.get(kind, kind)


def plan_family(node: Node, analysis: Analysis | None = None) -> str | None:
    """Which Spark state operator a planned operator becomes (None: it keeps no Spark state)."""
    physical = analysis.physical_of(node) if analysis is not None else None
    if physical is not None and physical.changelog:
        return "changelog"
    if not node.stateful:
        return None
    if isinstance(node, Join):
        return "join"
    if isinstance(node, GroupAggregate) and node.distinct_only:
        return "dedup"
    if isinstance(node, Deduplicate) and node.window is None and not node.keep_last and node.on_proctime:
        return "dedup"
    if isinstance(node, (GroupAggregate, WindowAggregate, Deduplicate, TopN)):
        return "agg"
    return None


def events_dir(workdir: Path, events: int, warmup: int) -> Path:
    return workdir / f"events-{events}-after-{warmup}"


def write_inputs(spark, workdir: Path, cases: list[Case], sizes: tuple[int, ...], per_file: int, rate: int) -> None:
    """Every case's input (the largest size: the smaller ones are its first files), written once
    before cases run side by side (they share it)."""
    for warmup in sorted({c.warmup for c in cases}):
        if not events_dir(workdir, max(sizes), warmup).exists():
            write_events(spark, events_dir(workdir, max(sizes), warmup), max(sizes), per_file, rate, warmup)


def run_case(engine_factory, spark, workdir: Path, case: Case, sizes: tuple[int, ...], per_file: int, rate: int) -> Measured:
    """Run the case once, on the largest input, and collect peak state rows at each size: the
    peaks of the micro-batches up to the one that read the size's last file. One file a batch, so
    a run of the smaller input (the first files of the larger one: the generator's events come in
    the same order) keeps exactly that state up to there; after it, its batches only release."""
    from sqlengine.jobs import Status

    largest = max(sizes)
    data = events_dir(workdir, largest, case.warmup)
    if not data.exists():
        write_events(spark, data, largest, per_file, rate, case.warmup)
    home = workdir / f"home-{case.name}"
    shutil.rmtree(home, ignore_errors=True)
    engine = engine_factory(home)
    for stmt in parse_script(nexmark_ddl(data, rate, per_file)).statements:
        engine.plan(stmt)
    statements = parse_script(case.sql).statements
    for stmt in statements[:-1]:  # the case's own DDL (a Nexmark file's sink table)
        engine.plan(stmt)
    outcome = engine.plan(statements[-1])
    analysis = outcome.analysis
    stateful = [(s.node, s) for s in analysis.state]
    measured = Measured(case, [(s.operator, s.verdict.value) for _, s in stateful],
                        families=[plan_family(n, analysis) for n, _ in stateful],
                        estimates=[_estimate(analysis, s) for _, s in stateful])
    job = engine.start(outcome)
    job.wait()
    if job.status != Status.FINISHED:
        raise RuntimeError(f"{case.name} at {largest} events: {job.status} {job.error_detail}")
    # the end-of-input flush is no evidence: it releases everything
    history = [snap for snap in job.history if not (snap.watermark and snap.watermark.startswith("9999"))]
    assert len({snap.query for snap in history}) <= 1, f"{case.name}: one streaming query expected"
    for events in sizes:
        files, read = -(-events // per_file), 0
        peaks: dict[int, int] = {}
        peak_bytes: dict[int, int] = {}
        names: dict[int, str] = {}
        for snap in history:
            if read == files:
                break
            read += snap.input_rows > 0
            for i, op in enumerate(snap.operators):
                peaks[i] = max(peaks.get(i, 0), op.rows)
                peak_bytes[i] = max(peak_bytes.get(i, 0), op.bytes)
                names[i] = op.name
        measured.spark_ops = [names[i] for i in sorted(names)]
        measured.peaks[events] = [peaks[i] for i in sorted(peaks)]
        measured.peak_bytes[events] = [peak_bytes[i] for i in sorted(peak_bytes)]
    judge(measured, sizes)
    return measured


def judge(m: Measured, sizes: tuple[int, ...]) -> None:
    small, large = m.peaks[sizes[0]], m.peaks[sizes[-1]]
    m.spark_verdicts = []
    for a, b in zip(small, large, strict=True):
        if a == 0 and b == 0:
            m.spark_verdicts.append(NO_EVIDENCE)
            continue
        ratio = (b / a) if a else float("inf")
        m.spark_verdicts.append("bounded" if ratio < BOUNDED_MAX else "unbounded" if ratio > UNBOUNDED_MIN else "unclear")
    planned = [v for (_, v), f in zip(m.planned, m.families, strict=True) if f is not None]
    planned_fams = [f for f in m.families if f is not None]
    spark_fams = [family(n) for n in m.spark_ops]
    if sorted(planned_fams) != sorted(spark_fams):
        m.agree = False
        m.detail = f"operators differ: planned {planned_fams}, Spark {spark_fams}"
        return
    # match by family, in order of appearance
    used = [False] * len(spark_fams)
    pairs = []
    m.matched = []
    for fam in m.families:
        if fam is None:
            m.matched.append(None)
            continue
        j = next(i for i, f in enumerate(spark_fams) if f == fam and not used[i])
        used[j] = True
        m.matched.append(j)
    for verdict, j in zip(planned, [j for j in m.matched if j is not None], strict=True):
        pairs.append((verdict, m.spark_verdicts[j]))
    evidence = [(p, s) for p, s in pairs if s != NO_EVIDENCE]
    m.agree = bool(evidence) and all(p == s for p, s in evidence)
    m.detail = "; ".join(f"planned {p} / measured {s}" for p, s in pairs)
    if not evidence:
        m.detail = "no operator kept any state: no evidence; " + m.detail


def _estimate(analysis: Analysis, info) -> tuple[float | None, float | None, bool]:
    """The planned operator's plateau, in entries and bytes (None: unbounded, or no statistics),
    and whether it is an upper bound (a key or a filter without a statistic)."""
    total = plateau(analysis.estimates.get(info.node_id, ()))
    return (total.plateau_entries, total.plateau_bytes, total.upper_bound) if total is not None else (None, None, False)


def estimate_cells(m: Measured, size: int) -> str:
    """Per bounded operator: estimated entries / Spark's peak entries at ``size`` (the ratio), and
    the same for bytes; "at most" marks an upper bound (a key or a filter without a statistic)."""
    cells = []
    for (entries, nbytes, upper), j in zip(m.estimates, m.matched, strict=False):
        if entries is None or j is None or size not in m.peaks:
            continue
        rows, spark_bytes = m.peaks[size][j], m.peak_bytes.get(size, [0] * (j + 1))[j]
        ratio = f"{entries / rows:.2f}" if rows else "-"
        bratio = f"{nbytes / spark_bytes:.2f}" if spark_bytes and nbytes else "-"
        at_most = "at most " if upper else ""
        cells.append(f"{at_most}{entries:,.0f} / {rows:,} ({ratio}×); {_kb(nbytes)} / {_kb(spark_bytes)} ({bratio}×)")
    return "; ".join(cells) or "-"


def _kb(n: float | None) -> str:
    return f"{(n or 0) / 1000:,.1f} KB"


def table(results: list[Measured], sizes: tuple[int, ...]) -> str:
    lines = [
        "| case | operators (planned verdict) | Spark operators | peak state rows " + " / ".join(f"{s:,}" for s in sizes)
        + f" events | agree | bounded state at {sizes[-1]:,} events: estimated / Spark's peak entries; bytes |",
        "|---|---|---|---|---|---|",
    ]
    for m in results:
        ops = ", ".join(f"{k}: {v}" for k, v in m.planned) or "none"
        peaks = "; ".join(" / ".join(str(m.peaks[s][i]) for s in sizes) for i in range(len(m.spark_ops))) or "-"
        name = m.case.name + (f" (after {m.case.warmup:,} events)" if m.case.warmup else "")
        agree = "yes" if m.agree else "NO: " + m.detail
        if m.agree and m.no_evidence:
            agree += f" ({len(m.no_evidence)} operator{'s' if len(m.no_evidence) > 1 else ''} kept no state: no evidence)"
        lines.append(f"| {name} | {ops} | {', '.join(m.spark_ops) or '-'} | {peaks} | {agree} | {estimate_cells(m, sizes[-1])} |")
    return "\n".join(lines) + "\n"


def to_json(results: list[Measured]) -> str:
    return json.dumps(
        [
            {"case": m.case.name, "planned": m.planned, "spark": m.spark_ops, "peaks": m.peaks, "agree": m.agree,
             "spark_verdicts": m.spark_verdicts}
            for m in results
        ],
        indent=2,
    )
