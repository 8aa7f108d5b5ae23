"""Physical properties inferred bottom-up per node: changelog mode (insert-only, upsert on a key,
retract), watermark (whether it advances and by how much it lags), and the settings in force
(state TTL from ``table.exec.state.ttl`` or a STATE_TTL hint)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from planner.logical.fields import TimeKind
from planner.logical.operators import (
    Calc,
    Correlate,
    Deduplicate,
    GroupAggregate,
    IntervalJoin,
    Join,
    JoinKind,
    LookupJoin,
    MatchRecognize,
    Node,
    OverAggregate,
    Scan,
    Sink,
    Sort,
    TemporalJoin,
    TopN,
    Union,
    Values,
    WindowAggregate,
    WindowJoin,
    WindowTVF,
)


class Mode(str, Enum):
    INSERT_ONLY = "insert-only"
    UPSERT = "upsert"
    RETRACT = "retract"


@dataclass(frozen=True)
class Changelog:
    mode: Mode
    key: tuple[str, ...] = ()  # upsert key

    def __str__(self) -> str:
        if self.mode == Mode.UPSERT and self.key:
            return f"upsert[{', '.join(self.key)}]"
        return self.mode.value

    @property
    def insert_only(self) -> bool:
        return self.mode == Mode.INSERT_ONLY

    @property
    def kinds(self) -> str:
        """The changelog row kinds this mode produces, as Flink prints them."""
        return {"insert-only": "[I]", "upsert": "[I,UA,D]", "retract": "[I,UB,UA,D]"}[self.mode.value]


INSERT_ONLY = Changelog(Mode.INSERT_ONLY)


@dataclass(frozen=True)
class Watermark:
    """Whether event time advances at a node, and the largest source delay behind it."""

    present: bool
    delay_ms: int | None  # None: present but not a constant delay (a custom strategy)
    sources: tuple[str, ...] = ()  # tables whose watermarks reach this node

    def __str__(self) -> str:
        if not self.present:
            return "none"
        from planner.logical.operators import fmt_ms

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
    delay = None if any(d is None for d in delays) else max(delays)  # type: ignore[type-var]
    return Watermark(True, delay, tuple(dict.fromkeys(s for p in parts for s in p.sources)))


def _changelog(node: Node, inputs: list[NodeProps]) -> Changelog:
    ins = [p.changelog for p in inputs]
    updating = any(not c.insert_only for c in ins)
    if isinstance(node, (Scan, Values)):
        return INSERT_ONLY
    if isinstance(node, (Calc, Correlate, Sink)):
        c = ins[0]
        if c.mode == Mode.UPSERT and c.key and isinstance(node, Calc):
            kept = {e.name: n for n, e in node.projections if hasattr(e, "name") and type(e).__name__ == "Column"}
            if all(k in kept for k in c.key):
                return Changelog(Mode.UPSERT, tuple(kept[k] for k in c.key))
            return Changelog(Mode.RETRACT)
        return c
    if isinstance(node, (WindowTVF, WindowAggregate, WindowJoin, MatchRecognize, OverAggregate)):
        return INSERT_ONLY
    if isinstance(node, GroupAggregate):
        if node.distinct_only and not updating:
            return INSERT_ONLY  # a distinct key is emitted once and never changes
        return Changelog(Mode.UPSERT, node.keys)
    if isinstance(node, (IntervalJoin, TemporalJoin, LookupJoin)):
        return ins[0] if isinstance(node, (TemporalJoin, LookupJoin)) else INSERT_ONLY
    if isinstance(node, Join):
        if updating or node.join_kind in (JoinKind.LEFT, JoinKind.RIGHT, JoinKind.FULL, JoinKind.ANTI):
            return Changelog(Mode.RETRACT)
        return INSERT_ONLY
    if isinstance(node, Deduplicate):
        if node.window is not None:
            return INSERT_ONLY
        order = node.input.field(node.order_field)
        if not node.keep_last and order is not None and order.time == TimeKind.PROCTIME:
            return INSERT_ONLY  # the first arrival per key never changes
        # keep-last, and keep-first on event time (an earlier row may still arrive): the row
        # kept per key can be replaced, an upsert on the key
        return Changelog(Mode.UPSERT, node.keys)
    if isinstance(node, TopN):
        if node.window is not None:
            return INSERT_ONLY
        if node.n == 1 and node.rank_func == "ROW_NUMBER":
            return Changelog(Mode.UPSERT, node.partition_keys)  # one row per key, replaced
        return Changelog(Mode.RETRACT)
    if isinstance(node, Union):
        return Changelog(Mode.RETRACT) if updating else INSERT_ONLY
    if isinstance(node, Sort):
        return Changelog(Mode.RETRACT) if node.limit is not None and node.order else ins[0]
    return ins[0] if ins else INSERT_ONLY


def _watermark(node: Node, inputs: list[NodeProps]) -> Watermark:
    if isinstance(node, Scan):
        if node.watermark_field is None:
            return Watermark(False, None, (node.table.name,))
        return Watermark(True, node.watermark_delay_ms, (node.table.name,))
    if isinstance(node, Values):
        return NO_WATERMARK
    if isinstance(node, LookupJoin):
        return inputs[0].watermark  # the probe side drives time; the lookup table is not a stream
    # an event-time temporal join waits for both inputs' watermarks (Flink emits at their minimum):
    # a versioned table without one stops time for everything downstream
    return _combine_watermarks([p.watermark for p in inputs])


def infer(plan: Node) -> dict[int, NodeProps]:
    """Properties of every node, keyed by ``id(node)``."""
    out: dict[int, NodeProps] = {}

    def visit(node: Node) -> NodeProps:
        if id(node) in out:
            return out[id(node)]
        inputs = [visit(c) for c in node.inputs]
        props = NodeProps(_changelog(node, inputs), _watermark(node, inputs))
        out[id(node)] = props
        return props

    visit(plan)
    return out
