"""Physical properties inferred bottom-up per node: changelog mode (insert-only, upsert on a key,
retract; each operator declares its own behaviour, ``Node.changelog``) and watermark (whether it
advances and by how much it lags). Keyed by ``Node.node_id``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from planner.logical.changelog import INSERT_ONLY, Changelog, Mode
from planner.logical.joins import LookupJoin
from planner.logical.operators import Node, Scan, Values
from planner.logical.specs import fmt_ms

__all__ = ["INSERT_ONLY", "Changelog", "Mode", "NodeProps", "Watermark", "infer"]


@dataclass(frozen=True)
class Watermark:
    """Whether event time advances at a node, and the largest source delay behind it."""

    present: bool
    delay_ms: int | None  # None: present but not a constant delay (a custom strategy)
    sources: tuple[str, ...] = ()  # tables whose watermarks reach this node

    def __str__(self) -> str:
        if not self.present:
            return "none"
        return f"delay {fmt_ms(self.delay_ms)}" if self.delay_ms is not None else "custom"


NO_WATERMARK = Watermark(False, None)


@dataclass(frozen=True)
class NodeProps:
    changelog: Changelog
    watermark: Watermark


def _combine_watermarks(parts: list[Watermark]) -> Watermark:
    if not parts or not all(p.present for p in parts):
        return Watermark(False, None, tuple(s for p in parts for s in p.sources))
    delays = [p.delay_ms for p in parts]
    known = [d for d in delays if d is not None]
    delay = max(known) if len(known) == len(delays) else None
    return Watermark(True, delay, tuple(dict.fromkeys(s for p in parts for s in p.sources)))


def _watermark(node: Node, inputs: list[NodeProps]) -> Watermark:
    if isinstance(node, Scan):
        if not node.watermark_advances:  # none, or a constant one
            return Watermark(False, None, (node.table.name,))
        return Watermark(True, node.watermark_delay_ms, (node.table.name,))
    if isinstance(node, Values):
        return NO_WATERMARK
    if isinstance(node, LookupJoin):
        return inputs[0].watermark  # the probe side drives time; the lookup table is not a stream
    # an event-time temporal join waits for both inputs' watermarks (Flink emits at their minimum):
    # a versioned table without one stops time for everything downstream
    return _combine_watermarks([p.watermark for p in inputs])


def infer(plans: Iterable[Node]) -> dict[int, NodeProps]:
    """Properties of every node of the plans, keyed by ``node_id``."""
    out: dict[int, NodeProps] = {}

    def visit(node: Node) -> NodeProps:
        done = out.get(node.node_id)
        if done is not None:
            return done
        inputs = [visit(c) for c in node.inputs]
        props = NodeProps(node.changelog([p.changelog for p in inputs]), _watermark(node, inputs))
        out[node.node_id] = props
        return props

    for plan in plans:
        visit(plan)
    return out
