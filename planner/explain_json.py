"""EXPLAIN as JSON: the plan's nodes (kind, description, changelog mode, watermark, state verdict
with its parts and estimates), the edges between them and the diagnostics, for tools and CI."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from planner.logical.operators import Node

if TYPE_CHECKING:
    from planner.analysis import Analysis
    from planner.estimate import Estimate


def node_ids(analysis: Analysis) -> dict[int, str]:
    """A stable id per distinct node, in pre-order over the plans: n0, n1, ..."""
    ids: dict[int, str] = {}
    for plan in analysis.plans:
        for node in plan.walk():
            if id(node) not in ids:
                ids[id(node)] = f"n{len(ids)}"
    return ids


def _estimate(e: Estimate | None) -> dict | None:
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


def _state(analysis: Analysis, node: Node) -> dict | None:
    info = analysis.state_of(node)
    if info is None:
        return None
    ests = analysis.estimates.get(id(node), ())
    parts = []
    for i, p in enumerate(info.parts):
        parts.append(
            {
                "label": p.label,
                "stores": p.stores,
                "per": p.per,
                "bound": p.bound,
                "bounded": p.bounded,
                "growth": p.growth.value,
                "retention_ms": p.retention_ms,
                "keys": list(p.key_labels or p.keys),
                "source_tables": list(p.source_tables),
                "estimate": _estimate(ests[i] if i < len(ests) else None),
            }
        )
    return {
        "verdict": info.verdict.value,
        "reason": info.reason,
        "ttl_ms": info.ttl_ms,
        "watermark_delay_ms": info.watermark_delay_ms,
        "parts": parts,
    }


def to_dict(analysis: Analysis) -> dict:
    ids = node_ids(analysis)
    nodes, edges, seen = [], [], set()
    for plan in analysis.plans:
        for node in plan.walk():
            if id(node) in seen:
                continue
            seen.add(id(node))
            props = analysis.props.get(id(node))
            nodes.append(
                {
                    "id": ids[id(node)],
                    "kind": node.kind,
                    "description": node.describe(),
                    "fields": node.field_names(),
                    "changelog": str(props.changelog) if props else None,
                    "watermark": str(props.watermark) if props else None,
                    "state": _state(analysis, node),
                }
            )
            for child in node.inputs:
                edges.append({"from": ids[id(child)], "to": ids[id(node)]})
    return {
        "roots": [ids[id(p)] for p in analysis.plans],
        "nodes": nodes,
        "edges": edges,
        "verdict": analysis.verdict.value if analysis.verdict else None,
        "total": _estimate(analysis.total) if analysis.state else None,
        "diagnostics": [dict(d.to_dict(), node=_node_of(analysis, d, ids)) for d in analysis.diagnostics],
    }


def _node_of(analysis: Analysis, d, ids: dict[int, str]) -> str | None:  # type: ignore[no-untyped-def]
    """The node a diagnostic is about: the first node of its operator kind whose state or span fits."""
    from planner.problems import node_span

    if d.operator is None:
        return None
    candidates = [n for p in analysis.plans for n in p.walk() if n.kind == d.operator]
    for node in candidates:
        if node.origin is not None and d.span is not None and node_span(node.origin, d.span) == d.span:
            return ids[id(node)]
    return ids[id(candidates[0])] if candidates else None


def render_json(analysis: Analysis, indent: int | None = 2) -> str:
    return json.dumps(to_dict(analysis), indent=indent, ensure_ascii=False)
