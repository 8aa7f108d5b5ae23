"""The analysis of one query or INSERT: plan, properties, state per operator, estimates and the
diagnostics of every rule. ``str(analysis)`` is the EXPLAIN text."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.diagnostics import Diagnostic, Severity
from planner.durations import parse_duration
from planner.estimate import Estimate, Estimator
from planner.lineage import Lineage
from planner.logical.operators import Node
from planner.properties import NodeProps, infer
from planner.rules import RULES, RuleContext
from planner.source import SourceText, Span
from planner.state import StateInfo, Verdict, analyze_state


@dataclass(frozen=True)
class Analysis:
    plans: tuple[Node, ...]
    props: dict[int, NodeProps] = field(repr=False)
    state: tuple[StateInfo, ...]
    estimates: dict[int, tuple[Estimate, ...]] = field(repr=False)  # id(node) -> per part
    total: Estimate | None
    diagnostics: tuple[Diagnostic, ...]

    @property
    def verdict(self) -> Verdict | None:
        if not self.state:
            return None
        return Verdict.UNBOUNDED if any(s.verdict == Verdict.UNBOUNDED for s in self.state) else Verdict.BOUNDED

    @property
    def unbounded(self) -> list[StateInfo]:
        return [s for s in self.state if s.verdict == Verdict.UNBOUNDED]

    def state_of(self, node: Node) -> StateInfo | None:
        return next((s for s in self.state if s.node is node), None)

    def __str__(self) -> str:
        from planner.explain import render_text

        return render_text(self)


def ttl_setting(settings: dict[str, str]) -> int | None:
    raw = settings.get("table.exec.state.ttl")
    if not raw:
        return None
    try:
        ms = parse_duration(raw)
    except ValueError:
        return None
    return ms or None


def analyze_plans(
    plans: list[Node],
    settings: dict[str, str] | None = None,
    *,
    stats: dict[str, dict[str, str]] | None = None,
    source: SourceText | None = None,
    span: Span | None = None,
    horizon_days: int = 30,
    rules=None,  # type: ignore[no-untyped-def]
) -> Analysis:
    settings = settings or {}
    lineage = Lineage(stats)
    props: dict[int, NodeProps] = {}
    state: list[StateInfo] = []
    for plan in plans:
        props.update(infer(plan))
    ttl = ttl_setting(settings)
    for plan in plans:
        state.extend(analyze_state(plan, props, lineage, ttl))
    estimator = Estimator(lineage, stats, horizon_days)
    estimates: dict[int, tuple[Estimate, ...]] = {}
    texts: dict[int, tuple[str | None, tuple[str | None, ...]]] = {}
    for info in state:
        per_part = tuple(estimator.part(info, p) for p in info.parts)
        estimates[id(info.node)] = per_part
        total = estimator.total(list(per_part))
        known = total is not None and (total.plateau_bytes is not None or total.bytes_at_horizon is not None)
        texts[id(info.node)] = (
            str(total) if known else None,
            tuple(str(e) if (e.plateau_bytes is not None or e.bytes_at_horizon is not None) else None for e in per_part),
        )
    all_parts = [e for per in estimates.values() for e in per]
    total = estimator.total(all_parts)
    diagnostics: list[Diagnostic] = []
    for plan in plans:
        ctx = RuleContext(plan, props, state, lineage, settings, source, span, texts)
        for rule in rules if rules is not None else RULES:
            diagnostics.extend(rule.run(ctx))
    unique: dict[tuple, Diagnostic] = {}
    for d in diagnostics:
        unique.setdefault((d.code, d.message, d.span), d)
    ordered = sorted(unique.values(), key=lambda d: (-d.severity.rank, d.span.start if d.span else 0, d.code))
    return Analysis(tuple(plans), props, tuple(state), estimates, total, tuple(ordered))


def worst(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> Severity | None:
    if not diagnostics:
        return None
    return max((d.severity for d in diagnostics), key=lambda s: s.rank)
