"""The analysis of one query or INSERT: plan, properties, state per operator, estimates, what
Spark cannot run (the checker's problems) and the diagnostics of every rule.
Side tables are keyed by ``Node.node_id``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from planner.analysis.check import Problem, check_plans
from planner.analysis.estimate import Estimator
from planner.analysis.estimate_figures import Estimate
from planner.analysis.lineage import Lineage, bounded_job
from planner.analysis.one_batch import OneBatch, verdict_under
from planner.analysis.physical import Physical, changelog_buckets, decide, jvm_setting
from planner.analysis.properties import NodeProps, infer
from planner.analysis.state import StateInfo, Verdict, analyze_state
from planner.diagnostics import Diagnostic
from planner.durations import parse_duration
from planner.logical.operators import UNNUMBERED, Node
from planner.logical.visit import distinct_nodes
from planner.rules import RULES, Rule, RuleContext
from planner.source import SourceText, Span
from planner.time_zone import local_time_zone

RUNTIME_MODE = "execution.runtime-mode"


@dataclass(frozen=True)
class Analysis:
    plans: tuple[Node, ...]
    props: dict[int, NodeProps] = field(repr=False)  # node id -> properties
    state: tuple[StateInfo, ...]
    estimates: dict[int, tuple[Estimate, ...]] = field(repr=False)  # node id -> per part
    total: Estimate | None
    diagnostics: tuple[Diagnostic, ...]
    # what Spark cannot run, for the runtime mode the analysis was made for
    problems: tuple[Problem, ...] = ()
    streaming: bool = True
    # how each stateful operator runs on Spark (streaming mode): native or a changelog operator
    physical: dict[int, Physical] = field(default_factory=dict, repr=False)
    ttl_ms: int | None = None  # 'table.exec.state.ttl' (a STATE_TTL hint is on its operator)
    time_zone: str = "UTC"  # 'table.local-time-zone', as Spark's functions take it
    # every source is finite (``lineage.bounded_job``): a streaming job ends, and runs no batch
    # without input (so no processing-time timer or timeout fires in it)
    bounded: bool = False
    # a bounded streaming job's verdict: run as one batch job or not (planner.analysis.one_batch);
    # None for an unbounded or a batch one
    one_batch: OneBatch | None = None

    @property
    def verdict(self) -> Verdict | None:
        if not self.state:
            return None
        return Verdict.UNBOUNDED if any(s.verdict == Verdict.UNBOUNDED for s in self.state) else Verdict.BOUNDED

    @property
    def unbounded(self) -> list[StateInfo]:
        return [s for s in self.state if s.verdict == Verdict.UNBOUNDED]

    def state_of(self, node: Node) -> StateInfo | None:
        return next((s for s in self.state if s.node_id == node.node_id), None)

    def physical_of(self, node: Node) -> Physical | None:
        return self.physical.get(node.node_id)

    def problems_of(self, plan: Node) -> list[Problem]:
        ids = {n.node_id for n in distinct_nodes([plan])}
        return [p for p in self.problems if p.node_id in ids]


def ttl_setting(settings: dict[str, str]) -> int | None:
    raw = settings.get("table.exec.state.ttl")
    if not raw:
        return None
    try:
        ms = parse_duration(raw)
    except ValueError:
        return None
    return ms or None


def is_streaming(settings: dict[str, str]) -> bool:
    return settings.get(RUNTIME_MODE, "streaming").lower() != "batch"


def analyze_plans(
    plans: Sequence[Node],
    settings: dict[str, str] | None = None,
    *,
    stats: dict[str, dict[str, str]] | None = None,
    source: SourceText | None = None,
    span: Span | None = None,
    horizon_days: int = 30,
    rules: Sequence[Rule] | None = None,
    changes_shown: bool = False,
) -> Analysis:
    """``changes_shown``: a query's result is shown change by change whatever the result mode
    (planner.analysis.one_batch)."""
    settings = settings or {}
    assert all(p.node_id != UNNUMBERED for p in plans), "plans are numbered by the binder"
    streaming = is_streaming(settings)
    lineage = Lineage(stats)
    props = infer(plans)
    ttl = ttl_setting(settings)
    zone = local_time_zone(settings)
    bounded = bounded_job(plans)
    physical = decide(plans, props, ttl, streaming, zone, jvm_setting(settings), bounded=bounded)
    state = analyze_state(plans, props, lineage, ttl, physical)
    backend = (settings.get("state.backend.type") or settings.get("state.backend") or "hashmap").strip().lower()
    # the operators whose state is in RocksDB, in buckets (on the JVM: one value per key, in the job's store)
    changelog = frozenset(i for i, ph in physical.items() if ph.changelog and not ph.jvm)
    partitions = settings.get("spark.sql.shuffle.partitions", "").strip()
    estimator = Estimator(lineage, horizon_days, provider=backend, changelog=changelog,
                          partitions=int(partitions) if partitions.isdigit() else None, buckets=changelog_buckets(settings),
                          jvm=frozenset(i for i, ph in physical.items() if ph.jvm))
    estimates: dict[int, tuple[Estimate, ...]] = {}
    texts: dict[int, tuple[str | None, tuple[str | None, ...]]] = {}
    for info in state:
        per_part = tuple(estimator.part(info, p) for p in info.parts)
        estimates[info.node_id] = per_part
        total = estimator.total(list(per_part))
        known = total is not None and (total.plateau_bytes is not None or total.bytes_at_horizon is not None)
        texts[info.node_id] = (
            str(total) if known else None,
            tuple(str(e) if (e.plateau_bytes is not None or e.bytes_at_horizon is not None) else None for e in per_part),
        )
    all_parts = [e for per in estimates.values() for e in per]
    total = estimator.total(all_parts)
    problems = check_plans(plans, props, physical, lineage, streaming=streaming, time_zone=zone)
    diagnostics: list[Diagnostic] = []
    for plan in plans:
        ctx = RuleContext(plan, props, list(state), lineage, settings, source, span, texts, problems, streaming, physical)
        for rule in rules if rules is not None else RULES:
            diagnostics.extend(rule.run(ctx))
    unique: dict[tuple[object, ...], Diagnostic] = {}
    for d in diagnostics:
        unique.setdefault((d.code, d.message, d.span), d)
    ordered = sorted(unique.values(), key=lambda d: (-d.severity.rank, d.span.start if d.span else 0, d.code))
    analysis = Analysis(tuple(plans), props, tuple(state), estimates, total, tuple(ordered), problems, streaming, physical, ttl, zone, bounded)
    if not (streaming and bounded):
        return analysis
    # what the same checker finds in batch mode (a batch run decides no changelog operator)
    batch_problems = check_plans(plans, props, decide(plans, props, ttl, False, zone, jvm_setting(settings), bounded=bounded),
                                 lineage, streaming=False, time_zone=zone)
    verdict = verdict_under(settings, plans, analysis, batch_problems=batch_problems, changes_shown=changes_shown)
    return replace(analysis, one_batch=verdict)


