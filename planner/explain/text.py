"""EXPLAIN as text: the plan tree with each node's changelog mode and state annotation, then the
state summary with estimates, then the advice (diagnostics).

``EXPLAIN stmt`` shows all of it. Flink's detail keywords choose, as in Flink, what is added to the
plain plan tree: ``CHANGELOG_MODE`` each node's changelog mode (and watermark), ``ESTIMATED_COST``
the state of each node and the state summary with estimates, ``PLAN_ADVICE`` the advice, and
``JSON_EXECUTION_PLAN`` the JSON form (alone: only the JSON document). See ``render_explain``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from planner.durations import format_duration
from planner.logical.operators import Node, Sink

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis


DETAILS = ("CHANGELOG_MODE", "ESTIMATED_COST", "PLAN_ADVICE", "JSON_EXECUTION_PLAN")


def _annotations(analysis: Analysis, changelog: bool = True, state: bool = True) -> Callable[[Node], list[str]]:
    def annotate(node: Node) -> list[str]:
        props = analysis.props.get(node.node_id)
        notes = []
        if props is not None and changelog:
            notes.append(f"changelog: {props.changelog}   watermark: {props.watermark}")
        physical = analysis.physical_of(node)
        if physical is not None:
            notes.append(f"runs as: {physical}")
        info = analysis.state_of(node) if state else None
        if info is not None:
            notes.append(f"state: {info.verdict.value.upper()}")
            for part, est in zip(info.parts, analysis.estimates.get(node.node_id, ()), strict=False):  # no estimates: no sizes
                keep = format_duration(part.retention_ms) if part.retention_ms is not None else ("forever" if not part.bounded else "until released")
                notes.append(f"  {part.label}: {part.stores}, {part.per}; {part.released}")
                notes.append(f"    kept: {keep}; size: {est}")
        return notes

    return annotate


def render_explain(analysis: Analysis, details: Iterable[str] = ()) -> str:
    """The output of ``EXPLAIN [detail, ...] stmt``. No detail: everything (plan with changelog
    modes and state, state summary, advice). With details, as Flink: the plan tree plus what each
    detail adds; ``JSON_EXECUTION_PLAN`` alone is the JSON document only."""
    from planner.explain.json_plan import render_json

    asked = {d.upper() for d in details}
    if not asked:
        return render_text(analysis)
    if asked == {"JSON_EXECUTION_PLAN"}:
        return render_json(analysis) + "\n"
    text = render_text(
        analysis,
        changelog="CHANGELOG_MODE" in asked,
        state="ESTIMATED_COST" in asked,
        advice="PLAN_ADVICE" in asked,
    )
    if "JSON_EXECUTION_PLAN" in asked:
        text += "\n== JSON Execution Plan ==\n" + render_json(analysis) + "\n"
    return text


def render_text(
    analysis: Analysis, show_plan: bool = True, *, changelog: bool = True, state: bool = True, advice: bool = True
) -> str:
    """The plan (its nodes annotated with changelog mode and watermark, and state), the state
    summary and the advice; ``changelog``, ``state`` and ``advice`` leave their parts out."""
    out: list[str] = []
    if show_plan:
        out.append("== Plan ==")
        annotate = _annotations(analysis, changelog=changelog, state=state)
        for plan in analysis.plans:
            out.extend(plan.tree_lines(annotate))
            out.append("")
        if analysis.one_batch is not None:
            out.extend((_one_batch_line(analysis), ""))
    if state:
        _state_section(analysis, out)
    if advice:
        _advice_section(analysis, out)
    return "\n".join(out).rstrip() + "\n"


def _one_batch_line(analysis: Analysis) -> str:
    assert analysis.one_batch is not None
    line = f"Bounded job: {analysis.one_batch}"
    if analysis.one_batch.ok:
        line += " (its whole input comes in one micro-batch)"
        if any(isinstance(plan, Sink) for plan in analysis.plans):
            line += ", unless its checkpoint holds an earlier run to resume"
    return line + "."


def _state_section(analysis: Analysis, out: list[str]) -> None:
    out.append("== State ==")
    if not analysis.state:
        out.append("No stateful operators: every row is processed on its own.")
    for info in analysis.state:
        ests = analysis.estimates.get(info.node_id, ())
        out.append(f"{info.operator}: {info.verdict.value.upper()} — {info.reason}")
        for part, est in zip(info.parts, ests, strict=True):
            shown = str(est)
            out.append(f"  {part.label}: {shown}" + (f"   [{est.formula}]" if shown != est.formula else ""))
        assumptions = sorted({a for e in ests for a in e.assumptions})
        for a in assumptions:
            out.append(f"    assuming {a}")
    if analysis.total is not None and analysis.state:
        out.append(f"Total: {analysis.total}")
    out.append("")


def _advice_section(analysis: Analysis, out: list[str]) -> None:
    out.append("== Advice ==")
    if not analysis.diagnostics:
        out.append("No advice: the state of this query is bounded and it runs as written.")
    for d in analysis.diagnostics:
        where = f"{d.line}:{d.column} " if d.span is not None else ""
        out.append(f"{where}{d.render()}")
    out.append("")
