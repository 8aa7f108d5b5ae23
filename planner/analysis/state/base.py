"""What the state analysis's parts share: the plan's properties, lineage, TTL setting and
physical decisions, and the helpers that key and release a part's state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from planner.analysis.lineage import Lineage
from planner.analysis.physical import Physical, RankStrategy
from planner.analysis.properties import NodeProps
from planner.analysis.state.facts import Growth, Never, Release, ReleaseKind, TtlClock
from planner.logical.operators import Node


@dataclass(frozen=True)
class Keyed:
    """How a keyed operator without a window is released: by a TTL, a finite key domain, or not."""

    growth: Growth
    retention_ms: int | None
    release: Release


class AnalyzerBase:
    """Mixed into StateAnalyzer, with the parts (``planner.analysis.state.joins``) that read it."""

    def __init__(self, props: dict[int, NodeProps], lineage: Lineage, ttl_ms: int | None, physical: dict[int, Physical] | None = None):
        self.props = props
        self.lineage = lineage
        self.ttl = ttl_ms  # table.exec.state.ttl, ms (None or 0: no TTL)
        self.physical = physical or {}  # how each operator runs (streaming): changes what a ranking keeps

    def retract_ranking(self, node: Node) -> bool:
        """A ranking over changes (Flink's RetractStrategy): it keeps every row of its input."""
        p = self.physical.get(node.node_id)
        return p is not None and p.strategy == RankStrategy.RETRACT

    def delay(self, node: Node) -> int | None:
        wm = self.props[node.node_id].watermark
        return wm.delay_ms if wm.present else None

    def has_watermark(self, node: Node) -> bool:
        return self.props[node.node_id].watermark.present

    # -- shared --------------------------------------------------------------------------------

    def _keys(self, node: Node, keys: tuple[str, ...], time_key: bool = True) -> dict[str, Any]:
        src = self.lineage.sources(node, keys)
        derived = next((k for k in keys if self.lineage.time_derived(node, k)), None)
        out: dict[str, Any] = {
            "keys": keys,
            "key_labels": tuple(self.lineage.display(node, k) for k in keys),
            "key_sources": tuple(s for s in src if s is not None),
            "source_tables": self.lineage.tables(node),
        }
        if time_key:
            out["time_derived_key"] = self.lineage.display(node, derived) if derived else None
        return out

    def _keyed(self, node: Node, keys: tuple[str, ...], ttl: int | None) -> Keyed:
        """A keyed operator whose state only a TTL, a finite key domain or nothing releases."""
        child = node.inputs[0] if node.inputs else node
        if ttl:
            return Keyed(Growth.NONE, ttl, Release(ReleaseKind.TTL, after_ms=ttl, ttl_clock=TtlClock.LAST_UPDATE))
        if any(self.lineage.time_derived(child, k) for k in keys):
            return Keyed(Growth.TIME, None, Release(ReleaseKind.NEVER, never=Never.TIME_BUCKET))
        if keys and self.lineage.finite_domain(child, keys):
            return Keyed(Growth.NONE, None, Release(ReleaseKind.FINITE_DOMAIN, never=Never.NO_TTL))
        return Keyed(Growth.KEYS if keys else Growth.NONE, None, Release(ReleaseKind.NEVER, never=Never.NO_TTL))

    def _buckets_per_day(self, node: Node, key: str | None) -> float | None:
        if key is None or not node.inputs:
            return None
        ms = self.lineage.bucket_ms(node.inputs[0], key)
        return 86_400_000 / ms if ms else None

    @staticmethod
    def arrives_closed(node: Node, window_id: int) -> bool:
        """The rows of window ``window_id`` reach ``node`` only once the window has closed: the
        window's nearest origin below is its event-time aggregation (emitting each window at its
        end), not its table function."""
        from planner.logical.operators import WindowAggregate, WindowTVF

        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, (WindowTVF, WindowAggregate)) and n.window.id == window_id:
                return isinstance(n, WindowAggregate) and not n.on_proctime
            stack.extend(n.inputs)
        return False

    def _window_release(self, node: Node, size_ms: int | None, proctime: bool = False) -> tuple[int, Release]:
        if proctime:  # closed by the wall clock: no watermark delay on top
            return size_ms or 0, Release(ReleaseKind.WINDOW_END, after_ms=size_ms, delay_ms=None)
        delay = self.delay(node)
        return (size_ms or 0) + (delay or 0), Release(ReleaseKind.WINDOW_END, after_ms=size_ms, delay_ms=delay or 0)
