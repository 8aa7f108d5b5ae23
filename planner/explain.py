"""EXPLAIN as text: the plan tree with each node's changelog mode and state annotation, then the
state summary with estimates, then the advice (diagnostics)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.durations import format_duration
from planner.logical.operators import Node

if TYPE_CHECKING:
    from planner.analysis import Analysis


def _annotations(analysis: Analysis):  # type: ignore[no-untyped-def]
    def annotate(node: Node) -> list[str]:
        props = analysis.props.get(id(node))
        notes = []
        if props is not None:
            notes.append(f"changelog: {props.changelog}   watermark: {props.watermark}")
        info = analysis.state_of(node)
        if info is not None:
            notes.append(f"state: {info.verdict.value.upper()}")
            for part, est in zip(info.parts, analysis.estimates.get(id(node), ())):
                keep = format_duration(part.retention_ms) if part.retention_ms is not None else ("forever" if not part.bounded else "until released")
                notes.append(f"  {part.label}: {part.stores}, {part.per}; {part.released}")
                notes.append(f"    kept: {keep}; size: {est}")
        return notes

    return annotate


def render_text(analysis: Analysis, show_plan: bool = True) -> str:
    out: list[str] = []
    if show_plan:
        out.append("== Plan ==")
        annotate = _annotations(analysis)
        for plan in analysis.plans:
            out.extend(plan.tree_lines(annotate))
            out.append("")
    out.append("== State ==")
    if not analysis.state:
        out.append("No stateful operators: every row is processed on its own.")
    for info in analysis.state:
        ests = analysis.estimates.get(id(info.node), ())
        out.append(f"{info.operator}: {info.verdict.value.upper()} — {info.reason}")
        for part, est in zip(info.parts, ests):
            shown = str(est)
            out.append(f"  {part.label}: {shown}" + (f"   [{est.formula}]" if shown != est.formula else ""))
        assumptions = sorted({a for e in ests for a in e.assumptions})
        for a in assumptions:
            out.append(f"    assuming {a}")
    if analysis.total is not None and analysis.state:
        out.append(f"Total: {analysis.total}")
    out.append("")
    out.append("== Advice ==")
    if not analysis.diagnostics:
        out.append("No advice: the state of this query is bounded and it runs as written.")
    for d in analysis.diagnostics:
        where = f"{d.line}:{d.column} " if d.span is not None else ""
        out.append(f"{where}{d.render()}")
    return "\n".join(out).rstrip() + "\n"
