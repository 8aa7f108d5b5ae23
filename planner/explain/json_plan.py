"""EXPLAIN as JSON: the plan's nodes (kind, description, changelog mode, watermark, how it runs on
Spark (native or a changelog operator, and why), state verdict with its parts and estimates, what
Spark cannot run of it), the edges between them and the
diagnostics, for tools and CI. Node ids are the binder's (``n<node_id>``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from planner.logical.operators import Node
from planner.logical.visit import distinct_nodes

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis
    from planner.analysis.estimate_figures import Estimate
    from planner.analysis.state import StatePart


def _estimate(e: Estimate | None) -> dict[str, Any] | None:
    if e is None:
        return None
    return {
        "text": str(e),
        "formula": e.formula,
        "rows_per_second": e.rows_per_second,
        "row_bytes": e.row_bytes,
        "plateau_bytes": e.plateau_bytes,
        "bytes_at_horizon": e.bytes_at_horizon,
        "growth_per_day": e.growth_per_day,
        "horizon_days": e.horizon_days,
        "upper_bound": e.upper_bound,
        "assumptions": list(e.assumptions),
    }


def _part(p: StatePart, estimate: Estimate | None) -> dict[str, Any]:
    r, s = p.release, p.stored
    return {
        "label": p.label,
        "stores": p.stores,
        "per": p.per,
        "bound": p.bound,
        "bounded": p.bounded,
        "growth": p.growth.value,
        "retention_ms": p.retention_ms,
        "release": {
            "kind": r.kind.value,
            "after_ms": r.after_ms,
            "delay_ms": r.delay_ms,
            "column": r.column,
            "never": r.never.value if r.never is not None else None,
        },
        "stored": {"kind": s.kind.value, "columns": list(s.columns), "count": s.count, "extras": [e.value for e in s.extras]},
        "keys": list(p.key_labels or p.keys),
        "source_tables": list(p.source_tables),
        "estimate": _estimate(estimate),
    }


def _state(analysis: Analysis, node: Node) -> dict[str, Any] | None:
    info = analysis.state_of(node)
    if info is None:
        return None
    ests = analysis.estimates.get(node.node_id, ())
    return {
        "verdict": info.verdict.value,
        "reason": info.reason,
        "ttl_ms": info.ttl_ms,
        "watermark_delay_ms": info.watermark_delay_ms,
        "parts": [_part(p, ests[i] if i < len(ests) else None) for i, p in enumerate(info.parts)],
    }


def _execution(analysis: Analysis, node: Node) -> dict[str, Any] | None:
    p = analysis.physical_of(node)
    if p is None:
        return None
    return {
        "kind": p.execution.value,
        "why": p.why.value if p.why is not None else None,
        "strategy": p.strategy.value if p.strategy is not None else None,
    }


def to_dict(analysis: Analysis) -> dict[str, Any]:
    nodes, edges = [], []
    for node in distinct_nodes(analysis.plans):
        props = analysis.props.get(node.node_id)
        nodes.append(
            {
                "id": node.label,
                "kind": node.kind.value,
                "description": node.describe(),
                "fields": node.field_names(),
                "changelog": str(props.changelog) if props else None,
                "watermark": str(props.watermark) if props else None,
                "execution": _execution(analysis, node),
                "state": _state(analysis, node),
                "unsupported": [{"code": p.code.value, "reason": p.reason} for p in analysis.problems if p.node_id == node.node_id],
            }
        )
        for child in node.inputs:
            edges.append({"from": child.label, "to": node.label})
    return {
        "roots": [p.label for p in analysis.plans],
        "nodes": nodes,
        "edges": edges,
        "verdict": analysis.verdict.value if analysis.verdict else None,
        # a bounded streaming job: whether it runs as one batch job, and if not why
        "one_batch": None if analysis.one_batch is None else {"ok": analysis.one_batch.ok, "why_not": analysis.one_batch.why_not},
        "total": _estimate(analysis.total) if analysis.state else None,
        "diagnostics": [d.to_dict() for d in analysis.diagnostics],
    }


def render_json(analysis: Analysis, indent: int | None = 2) -> str:
    return json.dumps(to_dict(analysis), indent=indent, ensure_ascii=False)
