"""State analysis: for each stateful operator, what it stores, what bounds it, what makes it grow.

A verdict is *bounded* when every part of the state is released after a fixed time (window end,
interval bound, TTL, the watermark) or when its keys come from a finite, known domain; otherwise
it is *unbounded*: it grows with the number of distinct keys, or with every input row. Each fact
is set here, as a typed value (``planner.state.facts``), where it is decided.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from planner.lineage import Lineage
from planner.logical.fields import TimeKind
from planner.logical.operators import (
    AggFunc,
    Deduplicate,
    GroupAggregate,
    IntervalJoin,
    Join,
    MatchRecognize,
    Node,
    OverAggregate,
    Sort,
    TemporalJoin,
    TopN,
    WindowAggregate,
    WindowJoin,
    WindowKind,
    WindowSpec,
    WindowTVF,
)
from planner.logical.visit import distinct_nodes
from planner.physical import Physical, RankStrategy
from planner.properties import NodeProps
from planner.state.facts import (
    Extra,
    Grouping,
    Growth,
    Never,
    PartRole,
    Release,
    ReleaseKind,
    StateInfo,
    StatePart,
    Stored,
    StoredKind,
    TtlClock,
)


def _ttl_for(node: Node, settings_ttl: int | None, side: int = 0) -> int | None:
    hint = node.state_ttl_ms[side] if len(node.state_ttl_ms) > side else None
    return hint if hint is not None else settings_ttl


@dataclass(frozen=True)
class Keyed:
    """How a keyed operator without a window is released: by a TTL, a finite key domain, or not."""

    growth: Growth
    retention_ms: int | None
    release: Release


class StateAnalyzer:
    def __init__(self, props: dict[int, NodeProps], lineage: Lineage, ttl_ms: int | None, physical: dict[int, Physical] | None = None):
        self.props = props
        self.lineage = lineage
        self.ttl = ttl_ms  # table.exec.state.ttl, ms (None or 0: no TTL)
        self.physical = physical or {}  # how each operator runs (streaming): changes what a ranking keeps

    def retract_ranking(self, node: Node) -> bool:
        """A ranking over changes (Flink's RetractStrategy): it keeps every row of its input."""
        p = self.physical.get(node.node_id)
        return p is not None and p.strategy == RankStrategy.RETRACT

    def _ranking_over_changes(self, node: Node, keys: tuple[str, ...], n: int, ttl: int | None) -> StatePart:
        """What a ranking over changes keeps: every row its input holds (a row leaves when the
        input retracts it), per partition: rows of an upsert input grow with its keys."""
        child = node.inputs[0]
        upstream = self.props[child.node_id].changelog
        if ttl:
            growth, retention = Growth.NONE, ttl
            release = Release(ReleaseKind.TTL, after_ms=ttl, ttl_clock=TtlClock.LAST_UPDATE)
        else:
            growth = Growth.KEYS if upstream.key else Growth.ROWS
            retention, release = None, Release(ReleaseKind.NEVER, never=Never.RANKING_INPUT)
        info = self._keys(child, keys)
        if growth == Growth.KEYS:  # the input's current rows: one per upsert key
            info = {**self._keys(child, upstream.key), "keys": upstream.key}
        return StatePart(
            role=PartRole.RANKED_ROWS,
            stored=Stored(StoredKind.PARTITION_ROWS, count=n),
            grouping=Grouping.PARTITION if keys else Grouping.GLOBAL_RANKING,
            release=release,
            retention_ms=retention,
            growth=growth,
            row_fields=tuple(child.field_names()),
            **info,
        )

    def delay(self, node: Node) -> int | None:
        wm = self.props[node.node_id].watermark
        return wm.delay_ms if wm.present else None

    def has_watermark(self, node: Node) -> bool:
        return self.props[node.node_id].watermark.present

    def analyze(self, node: Node) -> StateInfo | None:
        if not node.stateful:
            return None
        return ANALYZERS[type(node)](self, node)

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

    def _window_release(self, node: Node, size_ms: int | None) -> tuple[int, Release]:
        delay = self.delay(node)
        return (size_ms or 0) + (delay or 0), Release(ReleaseKind.WINDOW_END, after_ms=size_ms, delay_ms=delay or 0)

    # -- aggregations --------------------------------------------------------------------------

    def _group_agg(self, node: GroupAggregate) -> StateInfo:
        ttl = _ttl_for(node, self.ttl)
        keyed = self._keyed(node, node.keys, ttl)
        growth, release = keyed.growth, keyed.release
        keyinfo = self._keys(node.input, node.keys)
        extras: list[Extra] = []
        if any(a.distinct for a in node.aggs):
            extras.append(Extra.DISTINCT_SETS)
        updating = not self.props[node.input.node_id].changelog.insert_only
        if updating and any(a.func in (AggFunc.MIN, AggFunc.MAX) for a in node.aggs):
            extras.append(Extra.INPUT_VALUES)
        if not node.keys:
            growth, release = Growth.NONE, Release(ReleaseKind.SINGLE)
        time_key = next((k for k in node.keys if self.lineage.time_derived(node.input, k)), None)
        parts = [
            StatePart(
                role=PartRole.DISTINCT_ROWS if node.distinct_only else PartRole.ACCUMULATORS,
                stored=Stored(StoredKind.DISTINCT_ROW if node.distinct_only else StoredKind.ACCUMULATOR, extras=tuple(extras)),
                grouping=Grouping.KEY if node.keys else Grouping.GLOBAL_ROW,
                release=release,
                retention_ms=keyed.retention_ms,
                growth=growth,
                row_fields=tuple(node.field_names()),
                buckets_per_day=self._buckets_per_day(node, time_key),
                **keyinfo,
            )
        ]
        distinct_args = sorted({a.args[0].name for a in node.aggs if a.distinct and a.args and a.args[0].name})
        if distinct_args:
            # COUNT(DISTINCT x) keeps the set of x values seen per group: it grows with rows
            released = keyed.retention_ms is not None and growth == Growth.NONE
            parts.append(
                StatePart(
                    role=PartRole.DISTINCT_VALUES,
                    stored=Stored(StoredKind.DISTINCT_VALUES, columns=tuple(distinct_args)),
                    grouping=Grouping.KEY if node.keys else Grouping.TOTAL,
                    release=release if released else Release(ReleaseKind.NEVER, never=Never.DISTINCT_SETS),
                    retention_ms=keyed.retention_ms,
                    growth=Growth.NONE if released else Growth.KEYS,
                    keys=tuple(node.keys) + tuple(distinct_args),
                    key_labels=keyinfo["key_labels"] + tuple(distinct_args),
                    source_tables=keyinfo["source_tables"],
                    row_fields=tuple(distinct_args),
                )
            )
        return StateInfo(node, node.kind, tuple(parts), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _window_agg(self, node: WindowAggregate) -> StateInfo:
        w = node.window
        delay = self.delay(node.input)
        keys = node.keys
        keyinfo = self._keys(node.input, keys, time_key=False)
        grouping = Grouping.WINDOW_AND_KEY if keys else Grouping.WINDOW
        if not self.has_watermark(node.input) and not _proctime_window(node, w):
            part = StatePart(
                role=PartRole.WINDOW_ACCUMULATORS,
                stored=Stored(StoredKind.WINDOW_ACCUMULATOR),
                grouping=grouping,
                release=Release(ReleaseKind.NEVER, never=Never.NO_WATERMARK_WINDOW),
                retention_ms=None,
                growth=Growth.TIME,
                time_derived_key=f"{w.kind.value.lower()} window",
                **keyinfo,
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=None)
        if w.kind == WindowKind.SESSION:
            # a session ends once the watermark passes its last row + the gap, and then it is
            # emitted and dropped. What is open at any time is one session per key with a row in
            # the last gap + watermark delay: at most the rows of that span, however many keys
            # come and go over time (a key that never pauses holds one session, one accumulator).
            # So the state plateaus like a window as long as the gap; only a watermark that never
            # advances keeps sessions forever (handled above: SE107).
            part = StatePart(
                role=PartRole.SESSION_ACCUMULATORS,
                stored=Stored(StoredKind.WINDOW_ACCUMULATOR),
                grouping=Grouping.SESSION_AND_KEY if keys else Grouping.GLOBAL_SESSION,
                release=Release(ReleaseKind.SESSION_END, after_ms=w.gap_ms, delay_ms=delay or 0, keyed=bool(keys)),
                retention_ms=(w.gap_ms or 0) + (delay or 0) if keys else None,
                growth=Growth.NONE,
                row_fields=tuple(node.field_names()),
                **keyinfo,
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)
        panes = 1
        if w.kind == WindowKind.HOP and w.size_ms and w.slide_ms:
            panes = w.size_ms // w.slide_ms
        elif w.kind == WindowKind.CUMULATE and w.size_ms and w.step_ms:
            panes = w.size_ms // w.step_ms
        retention, release = self._window_release(node.input, w.size_ms)
        part = StatePart(
            role=PartRole.WINDOW_ACCUMULATORS,
            stored=Stored(StoredKind.WINDOW_ACCUMULATOR, count=panes),
            grouping=grouping,
            release=release,
            retention_ms=retention,
            growth=Growth.NONE,
            rows_per_key=panes,
            row_fields=tuple(node.field_names()),
            **keyinfo,
        )
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)

    # -- joins ---------------------------------------------------------------------------------

    def _side(
        self, join: Join, side: int, retention: int | None, release: Release, growth: Growth, role: PartRole | None = None
    ) -> StatePart:
        child = join.inputs[side]
        n_left = len(join.left.fields)
        keys = tuple(k[side] for k in join.equi_keys)
        child_names = child.field_names()
        # join keys are named in the join's output; map them to the child's columns
        names = join.field_names()
        offset = 0 if side == 0 else n_left
        key_cols = tuple(child_names[names.index(k) - offset] for k in keys if k in names)
        info = self._keys(child, key_cols, time_key=False)
        changelog = self.props[child.node_id].changelog
        kind = StoredKind.ROWS if changelog.insert_only else StoredKind.UPSERT_ROWS
        if not changelog.insert_only and changelog.key and growth == Growth.ROWS:
            growth = Growth.KEYS
        counted = self.physical.get(join.node_id)
        extras = (Extra.MATCH_COUNTS,) if counted is not None and counted.counted[side] else ()
        return StatePart(
            role=role or (PartRole.LEFT_SIDE if side == 0 else PartRole.RIGHT_SIDE),
            stored=Stored(kind, tables=self.lineage.tables(child), extras=extras),
            grouping=Grouping.JOIN_KEY if key_cols else Grouping.NO_JOIN_KEY,
            release=release,
            retention_ms=retention,
            growth=growth,
            row_fields=tuple(child_names),
            input_index=side,
            **info,
        )

    def _evicted_by(self, node: Join, side: int) -> str | None:
        """A column of this side that the condition bounds from below by the other side's event
        time (``s.x >= o.rowtime + c``): once the other side's watermark passes it, no future row
        can match, and Spark drops the row. None if there is no such bound."""
        from planner.binder.joins import comparisons, conjuncts, time_offset
        from planner.logical import typing as T

        n_left = len(node.left.fields)
        names = node.field_names()
        own = set(names[:n_left]) if side == 0 else set(names[n_left:])
        other_child = node.inputs[1 - side]
        if not self.has_watermark(other_child):
            return None
        offset = n_left if side == 0 else 0
        other_fields = {names[offset + i]: f for i, f in enumerate(other_child.fields)}
        own_child = node.inputs[side]
        own_offset = 0 if side == 0 else n_left
        own_fields = {names[own_offset + i]: f for i, f in enumerate(own_child.fields)}
        flip = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}
        for c in conjuncts(node.condition):
            for a, op, b in comparisons(c):
                ta, tb = time_offset(a), time_offset(b)
                if ta is None or tb is None:
                    continue
                (fa, _), (fb, _) = ta, tb
                if fa in own and fb in other_fields:
                    s_col, o_col, s_op = fa, fb, op
                elif fb in own and fa in other_fields:
                    s_col, o_col, s_op = fb, fa, flip[op]
                else:
                    continue
                of, sf = other_fields[o_col], own_fields.get(s_col)
                if of.time != TimeKind.ROWTIME or sf is None or not T.is_type(sf.type, *T.TIMESTAMPS):
                    continue
                if s_op in (">", ">=", "="):
                    return self.lineage.display(node, s_col)
        return None

    def _regular_join(self, node: Join) -> StateInfo:
        parts = []
        for side in (0, 1):
            ttl = _ttl_for(node, self.ttl, side)
            evicting = self._evicted_by(node, side)
            if ttl:
                release = Release(ReleaseKind.TTL, after_ms=ttl, ttl_clock=TtlClock.STORED)
                parts.append(self._side(node, side, ttl, release, Growth.NONE))
            elif evicting is not None:
                release = Release(ReleaseKind.OTHER_SIDE_WATERMARK, column=evicting)
                parts.append(self._side(node, side, None, release, Growth.NONE))
            else:
                release = Release(ReleaseKind.NEVER, never=Never.REGULAR_JOIN)
                parts.append(self._side(node, side, None, release, Growth.ROWS))
        return StateInfo(node, node.kind, tuple(parts), ttl_ms=_ttl_for(node, self.ttl), watermark_delay_ms=self.delay(node))

    def _interval_join(self, node: IntervalJoin) -> StateInfo:
        delay = self.delay(node)
        span = node.upper_ms - node.lower_ms
        parts = []
        for side in (0, 1):
            left_time = node.field(node.left_time)
            if not self.has_watermark(node.inputs[side]) and left_time is not None and left_time.time == TimeKind.ROWTIME:
                release = Release(ReleaseKind.NEVER, never=Never.NO_WATERMARK_ROWS)
                parts.append(self._side(node, side, None, release, Growth.ROWS))
                continue
            # left.ts BETWEEN right.ts + lower AND right.ts + upper: a left row at t matches right
            # rows up to t - lower, a right row at s matches left rows up to s + upper; a row waits
            # until the other side's watermark has passed that
            reach = max(-node.lower_ms if side == 0 else node.upper_ms, 0)
            release = Release(ReleaseKind.INTERVAL_BOUND, after_ms=reach, delay_ms=delay or 0, span_ms=span)
            parts.append(self._side(node, side, reach + (delay or 0), release, Growth.NONE))
        return StateInfo(node, node.kind, tuple(parts), watermark_delay_ms=delay)

    def _window_join(self, node: WindowJoin) -> StateInfo:
        delay = self.delay(node)
        size = node.window.size_ms or node.window.gap_ms
        retention, release = (size or 0) + (delay or 0), Release(ReleaseKind.WINDOW_END, after_ms=size, delay_ms=delay or 0)
        parts = tuple(self._side(node, side, retention, release, Growth.NONE) for side in (0, 1))
        return StateInfo(node, node.kind, parts, watermark_delay_ms=delay)

    def _temporal_join(self, node: TemporalJoin) -> StateInfo:
        # Flink's event-time temporal join (TemporalRowTimeJoinOperator), keyed by the join key:
        # left rows wait until the watermark passes their time; of the versioned side it drops
        # the versions the watermark has passed except the latest per key, which stays for left
        # rows still to come. Only 'table.exec.state.ttl' clears a key (idle on both sides for
        # the TTL): the STATE_TTL hint is for regular joins and group aggregations.
        delay = self.delay(node)
        ttl = self.ttl or None
        if not self.has_watermark(node.right):
            left = self._side(node, 0, None, Release(ReleaseKind.NEVER, never=Never.VERSIONED_NO_WATERMARK), Growth.ROWS)
            right = self._side(node, 1, None, Release(ReleaseKind.NEVER, never=Never.NO_WATERMARK_VERSIONS), Growth.ROWS,
                               PartRole.VERSIONS)
        else:
            left = self._side(node, 0, delay or 0, Release(ReleaseKind.WATERMARK, delay_ms=delay or 0), Growth.NONE)
            right = self._side(node, 1, None, Release(ReleaseKind.NEVER, never=Never.LATEST_VERSION), Growth.KEYS,
                               PartRole.VERSIONS)
            if ttl:
                release = Release(ReleaseKind.TTL, after_ms=ttl, ttl_clock=TtlClock.LAST_ROW_EITHER_SIDE)
                right = replace(right, growth=Growth.NONE, retention_ms=ttl, release=release)
            elif self.lineage.finite_domain(node.right, right.keys):
                right = replace(right, growth=Growth.NONE, release=Release(ReleaseKind.FINITE_DOMAIN, never=Never.LATEST_VERSION))
        right = replace(right, stored=Stored(StoredKind.VERSIONS, tables=self.lineage.tables(node.right)))
        return StateInfo(node, node.kind, (left, right), ttl_ms=ttl, watermark_delay_ms=delay)

    # -- ranking -------------------------------------------------------------------------------

    def _dedup(self, node: Deduplicate) -> StateInfo:
        if node.window is not None:
            retention, release = self._window_release(node, node.window.size_ms)
            part = StatePart(
                role=PartRole.KEPT_ROWS, stored=Stored(StoredKind.WINDOW_ROW), grouping=Grouping.KEY_AND_WINDOW,
                release=release, retention_ms=retention, growth=Growth.NONE, keys=node.keys,
                key_labels=tuple(self.lineage.display(node.input, k) for k in node.keys), row_fields=tuple(node.field_names()),
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=self.delay(node))
        ttl = _ttl_for(node, self.ttl)
        if self.retract_ranking(node):
            part = self._ranking_over_changes(node, node.keys, 1, ttl)
            return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))
        keyed = self._keyed(node, node.keys, ttl)
        part = StatePart(
            role=PartRole.KEPT_ROWS,
            stored=Stored(StoredKind.LAST_ROW if node.keep_last else StoredKind.FIRST_MARKER),
            grouping=Grouping.KEY,
            release=keyed.release,
            retention_ms=keyed.retention_ms,
            growth=keyed.growth,
            row_fields=tuple(node.field_names()) if node.keep_last else node.keys,
            **self._keys(node.input, node.keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _topn(self, node: TopN) -> StateInfo:
        if node.window is not None:
            retention, release = self._window_release(node, node.window.size_ms)
            part = StatePart(
                role=PartRole.RANKED_ROWS, stored=Stored(StoredKind.WINDOW_RANKED, count=node.n),
                grouping=Grouping.WINDOW_AND_PARTITION, release=release, retention_ms=retention, growth=Growth.NONE,
                keys=node.partition_keys, key_labels=node.partition_keys, rows_per_key=node.n,
                row_fields=tuple(node.field_names()),
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=self.delay(node))
        ttl = _ttl_for(node, self.ttl)
        if self.retract_ranking(node):
            part = self._ranking_over_changes(node, node.partition_keys, node.n, ttl)
            return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))
        keyed = self._keyed(node, node.partition_keys, ttl)
        growth, release = keyed.growth, keyed.release
        if not node.partition_keys:
            growth, release = Growth.NONE, Release(ReleaseKind.SINGLE, count=node.n)
        part = StatePart(
            role=PartRole.RANKED_ROWS,
            stored=Stored(StoredKind.TOP_ROWS, count=node.n),
            grouping=Grouping.PARTITION if node.partition_keys else Grouping.GLOBAL_RANKING,
            release=release,
            retention_ms=keyed.retention_ms,
            growth=growth,
            rows_per_key=node.n,
            row_fields=tuple(node.field_names()),
            **self._keys(node.input, node.partition_keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _over(self, node: OverAggregate) -> StateInfo:
        keys = node.partition_keys
        ttl = _ttl_for(node, self.ttl)
        keyed = self._keyed(node, keys, ttl)
        growth, release = keyed.growth, keyed.release
        if node.preceding is None:
            stored = Stored(StoredKind.OVER_ACCUMULATOR, extras=(Extra.WAITING,))
        elif node.rows:
            stored = Stored(StoredKind.OVER_ROWS, count=node.preceding, extras=(Extra.WAITING,))
        else:
            stored = Stored(StoredKind.OVER_RANGE, span_ms=node.preceding, extras=(Extra.WAITING,))
        if not keys:
            growth, release = Growth.NONE, Release(ReleaseKind.SINGLE)
        part = StatePart(
            role=PartRole.WINDOW_ROWS,
            stored=stored,
            grouping=Grouping.PARTITION if keys else Grouping.GLOBAL_PARTITION,
            release=release,
            retention_ms=keyed.retention_ms,
            growth=growth,
            rows_per_key=(node.preceding + 1) if node.rows and node.preceding is not None else None,
            row_fields=tuple(node.input.field_names()),
            **self._keys(node.input, keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _match(self, node: MatchRecognize) -> StateInfo:
        delay = self.delay(node)
        keyinfo = self._keys(node.input, node.partition_keys, time_key=False)
        if node.within_ms is not None:
            part = StatePart(
                role=PartRole.PARTIAL_MATCHES, stored=Stored(StoredKind.PARTIAL_MATCHES), grouping=Grouping.PARTITION,
                release=Release(ReleaseKind.WITHIN, after_ms=node.within_ms, delay_ms=delay or 0),
                retention_ms=node.within_ms + (delay or 0), growth=Growth.NONE,
                row_fields=tuple(node.input.field_names()), **keyinfo,
            )
        else:
            keyed = self._keyed(node, node.partition_keys, _ttl_for(node, self.ttl))
            part = StatePart(
                role=PartRole.PARTIAL_MATCHES, stored=Stored(StoredKind.PARTIAL_MATCHES, extras=(Extra.UNBOUNDED_MATCH,)),
                grouping=Grouping.PARTITION, release=keyed.release, retention_ms=keyed.retention_ms,
                growth=Growth.ROWS if keyed.growth != Growth.NONE else Growth.NONE,
                row_fields=tuple(node.input.field_names()), **keyinfo,
            )
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)

    def _sort(self, node: Sort) -> StateInfo:
        delay = self.delay(node)
        if node.limit is not None and self.retract_ranking(node):
            part = self._ranking_over_changes(node, (), node.limit, _ttl_for(node, self.ttl))
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)
        if node.limit is not None:
            part = StatePart(
                role=PartRole.SORTED_ROWS, stored=Stored(StoredKind.FIRST_ROWS, count=node.limit), grouping=Grouping.TOTAL,
                release=Release(ReleaseKind.LIMIT, count=node.limit), retention_ms=None, growth=Growth.NONE,
                rows_per_key=node.limit, row_fields=tuple(node.field_names()),
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)
        first = node.first_key
        kind = first.time if first is not None else None
        retention: int | None
        if kind == TimeKind.PROCTIME:  # rows leave in arrival order, as the clock passes them
            retention, release, growth = 0, Release(ReleaseKind.PROCESSING_TIME), Growth.NONE
        elif kind == TimeKind.ROWTIME and self.has_watermark(node):
            retention, release, growth = delay, Release(ReleaseKind.WATERMARK, delay_ms=delay or 0), Growth.NONE
        elif kind == TimeKind.ROWTIME:
            retention, release, growth = None, Release(ReleaseKind.NEVER, never=Never.NO_WATERMARK_SORT), Growth.ROWS
        else:  # not a time attribute: no watermark can ever pass a value of it
            retention, release, growth = None, Release(ReleaseKind.NEVER, never=Never.NOT_TIME_ATTRIBUTE), Growth.ROWS
        part = StatePart(
            role=PartRole.BUFFERED_ROWS, stored=Stored(StoredKind.WAITING_ROWS), grouping=Grouping.TIME_ORDER,
            release=release, retention_ms=retention, growth=growth, row_fields=tuple(node.field_names()),
        )
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)


# which analysis each stateful operator class gets (exact classes: IntervalJoin is a Join)
ANALYZERS: dict[type[Node], Callable[[StateAnalyzer, Any], StateInfo]] = {
    GroupAggregate: StateAnalyzer._group_agg,
    WindowAggregate: StateAnalyzer._window_agg,
    Join: StateAnalyzer._regular_join,
    IntervalJoin: StateAnalyzer._interval_join,
    WindowJoin: StateAnalyzer._window_join,
    TemporalJoin: StateAnalyzer._temporal_join,
    Deduplicate: StateAnalyzer._dedup,
    TopN: StateAnalyzer._topn,
    OverAggregate: StateAnalyzer._over,
    MatchRecognize: StateAnalyzer._match,
    Sort: StateAnalyzer._sort,
}


def _proctime_window(node: WindowAggregate, w: WindowSpec) -> bool:
    # after a window TVF its time column is a plain timestamp: ask the TVF's input
    for n in node.walk():
        if isinstance(n, WindowTVF) and n.window.id == w.id:
            f = n.input.field(w.time_field)
            return f is not None and f.time == TimeKind.PROCTIME
    f = node.input.field(w.time_field)  # a legacy GROUP BY TUMBLE(proctime, ...)
    return f is not None and f.time == TimeKind.PROCTIME


def analyze_state(
    plans: Iterable[Node],
    props: dict[int, NodeProps],
    lineage: Lineage,
    ttl_ms: int | None,
    physical: dict[int, Physical] | None = None,
) -> list[StateInfo]:
    """The state of every stateful operator of the plans (a shared subtree once), pre-order."""
    analyzer = StateAnalyzer(props, lineage, ttl_ms, physical)
    out = []
    for node in distinct_nodes(plans):
        info = analyzer.analyze(node)
        if info is not None:
            out.append(info)
    return out
