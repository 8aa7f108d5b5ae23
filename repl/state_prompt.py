"""State first: before a continuous query or INSERT starts, the shell says what state it will keep.

Each stateful operator is listed with its verdict (bounded / unbounded), why, and the estimate. If
any state is unbounded, ``'sql-client.state-warnings'`` decides:

    ignore  print the analysis and start
    warn    print the analysis and ask "Start it anyway? [y/N]" (the default; without a terminal,
            as with ``-f``, the warning is printed and the statement starts)
    error   print the analysis and refuse to start

The same module pairs Spark's measured state (per stateful operator of each query) with the
analysis, for the table view's status line and DESCRIBE JOB.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.analysis.analyze import Analysis
from planner.analysis.estimate_figures import human_bytes, human_count, plateau
from planner.analysis.state import StateInfo, Verdict

if TYPE_CHECKING:
    from sqlengine.progress import OperatorState, Snapshot

SETTING = "sql-client.state-warnings"
OVER = 2  # measured state past this many times its estimate is worth a warning


@dataclass(frozen=True)
class Decision:
    start: bool
    report: str  # what was printed (the analysis and the outcome)


def estimate_text(analysis: Analysis, info: StateInfo) -> str:
    """One operator's estimate: the plateau, the size after the horizon, or the formula."""
    ests = analysis.estimates.get(info.node_id, ())
    if not ests:
        return "no estimate"
    total = plateau(ests)
    if total is not None:
        return str(total)
    if len(ests) == 1:
        return str(ests[0])
    return "; ".join(f"{p.label}: {e}" for p, e in zip(info.parts, ests, strict=True))


def state_report(analysis: Analysis) -> list[tuple[str, str]]:
    """The state analysis as (style class, text) lines."""
    if not analysis.state:
        return [("dim", "State: none — every row is processed on its own.")]
    lines: list[tuple[str, str]] = [("", "State:")]
    for info in analysis.state:
        bounded = info.verdict == Verdict.BOUNDED
        lines.append(
            ("state.bounded" if bounded else "state.unbounded", f"  {info.operator}: {info.verdict.value.upper()}")
        )
        lines.append(("", f"    why: {info.reason}"))
        lines.append(("dim", f"    estimate: {estimate_text(analysis, info)}"))
    for d in analysis.diagnostics:
        if d.severity.value in ("error", "warning"):
            lines.append(("warning", f"  {d.severity.value.upper()} {d.code} {d.message}"))
            if d.hint:
                lines.append(("dim", f"    hint: {d.hint}"))
    return lines


def decide(
    analysis: Analysis | None,
    setting: str,
    emit: Callable[[list[tuple[str, str]]], None],
    ask: Callable[[str], bool] | None,
) -> bool:
    """Print the analysis through ``emit`` and decide whether the statement starts.

    ``ask`` poses a yes/no question (None: no one to ask, as with ``-f``).
    """
    if analysis is None:
        return True
    emit(state_report(analysis))
    if not analysis.unbounded:
        return True
    names = ", ".join(s.operator for s in analysis.unbounded)
    mode = (setting or "warn").lower()
    if mode == "ignore":
        return True
    if mode == "error":
        emit([("error", f"Not started: unbounded state ({names}) and '{SETTING}' is 'error'.")])
        return False
    if ask is None:
        emit([("warning", f"Starting with unbounded state ({names}); no terminal to ask.")])
        return True
    if ask("State grows without bound. Start it anyway? [y/N] "):
        return True
    emit([("dim", "Not started.")])
    return False


# -- measured state next to the estimate ---------------------------------------------------------


def _query_index(query_name: str) -> int | None:
    tail = query_name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def planned_entries(analysis: Analysis, info: StateInfo) -> float | None:
    """The operator's estimated plateau in entries (None: it grows, or no statistics)."""
    total = plateau(analysis.estimates.get(info.node_id, ()))
    return total.plateau_entries if total is not None else None


def over_estimate(op: OperatorState, analysis: Analysis, info: StateInfo) -> float | None:
    """How many times its estimate an operator's measured entries are, when that is more than
    twice (a sign that the statistics behind the estimate are wrong); else None."""
    entries = planned_entries(analysis, info)
    if entries is None or entries <= 0 or op.rows <= OVER * entries:
        return None
    return op.rows / entries


def _infos(query: str, analysis: Analysis | None) -> list[StateInfo]:
    """The analysis's stateful operators of one query (named ``...-<index of its plan>``)."""
    idx = _query_index(query)
    if analysis is None or idx is None or idx >= len(analysis.plans):
        return []
    nodes = {n.node_id for n in analysis.plans[idx].walk()}
    return [s for s in analysis.state if s.node_id in nodes]


def _paired(query: str, snap: Snapshot, analysis: Analysis | None) -> list[tuple[OperatorState, StateInfo]] | None:
    """Spark's state operators of one query with the analysis's, in order; None when the counts
    differ (Spark lists a query's operators top-down, as the analysis walks its plan)."""
    infos, ops = _infos(query, analysis), list(snap.operators)
    return list(zip(ops, infos, strict=True)) if ops and len(ops) == len(infos) else None


def estimate_warnings(snapshots: Mapping[str, Snapshot], analysis: Analysis | None) -> list[tuple[str, str]]:
    """(query and operator, warning) for each operator whose measured entries passed twice its
    estimate."""
    out = []
    for query, snap in sorted(snapshots.items()):
        for i, (op, info) in enumerate(_paired(query, snap, analysis) or []):
            assert analysis is not None
            times = over_estimate(op, analysis, info)
            if times is not None:
                entries = planned_entries(analysis, info) or 0
                out.append((
                    f"{query}#{i}",
                    f"{info.operator} keeps {op.rows:,} state entries, {times:.1f}× the estimate of {human_count(entries)}: "
                    "the statistics behind the estimate (rates, 'stats.distinct.<column>', key ranges) may be wrong",
                ))
    return out


def measured_vs_estimate(snapshots: Mapping[str, Snapshot], analysis: Analysis | None) -> list[str]:
    """One line per stateful operator of each query: Spark's rows and bytes, and the estimate.

    Spark lists a query's state operators top-down, as the analysis walks each plan, so they are
    paired in order when their counts agree; otherwise each side is listed on its own.
    """
    lines = []
    for query, snap in sorted(snapshots.items()):
        paired = _paired(query, snap, analysis)
        if paired is not None:
            assert analysis is not None
            for op, info in paired:
                times = over_estimate(op, analysis, info)
                over = f" — {times:.1f}× the estimate: check the statistics behind it" if times else ""
                lines.append(
                    f"{info.operator} ({op.name}): {op.rows} rows, {human_bytes(op.bytes)} — "
                    f"{info.verdict.value}, est. {estimate_text(analysis, info)}{over}"
                )
        else:
            for op in snap.operators:
                lines.append(f"{op.name}: {op.rows} rows, {human_bytes(op.bytes)}")
            for info in _infos(query, analysis):
                assert analysis is not None
                lines.append(f"{info.operator}: {info.verdict.value}, est. {estimate_text(analysis, info)}")
    return lines
