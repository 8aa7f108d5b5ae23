"""The state of joins: a regular join's two sides (released by a TTL, by the other side's
watermark when the condition bounds a side's time from below, or never), an interval join's
rows (until the other side's watermark passes the interval), a window join's (until the window
ends) and an event-time temporal join's (left rows until the watermark, the latest version per
key until a TTL)."""

from __future__ import annotations

from dataclasses import replace

from planner.analysis.properties import Mode
from planner.analysis.state.base import AnalyzerBase
from planner.analysis.state.facts import (
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
from planner.logical.fields import TimeKind
from planner.logical.joins import IntervalJoin, Join, TemporalJoin, WindowJoin


class JoinState(AnalyzerBase):
    """Mixed into StateAnalyzer."""

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
        elif changelog.mode == Mode.UPSERT and not changelog.key and growth != Growth.NONE:
            # an upsert with no key columns is one row (a global aggregation: a scalar subquery's value)
            growth, release, retention = Growth.NONE, Release(ReleaseKind.SINGLE), None
        physical = self.physical.get(join.node_id)
        extras = (Extra.MATCH_COUNTS,) if physical is not None and physical.counted[side] else ()
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
            ttl = node.state_ttl(self.ttl, side)
            # Spark's own join drops a row once the other side's watermark passes its bound; a
            # changelog join (outer, semi, anti, over updates) keeps it until retracted
            p = self.physical.get(node.node_id)
            evicting = None if p is not None and p.changelog else self._evicted_by(node, side)
            if ttl:
                release = Release(ReleaseKind.TTL, after_ms=ttl, ttl_clock=TtlClock.STORED)
                parts.append(self._side(node, side, ttl, release, Growth.NONE))
            elif evicting is not None:
                release = Release(ReleaseKind.OTHER_SIDE_WATERMARK, column=evicting)
                parts.append(self._side(node, side, None, release, Growth.NONE))
            else:
                release = Release(ReleaseKind.NEVER, never=Never.REGULAR_JOIN)
                parts.append(self._side(node, side, None, release, Growth.ROWS))
        return StateInfo(node, node.kind, tuple(parts), ttl_ms=node.state_ttl(self.ttl), watermark_delay_ms=self.delay(node))

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
            if node.on_proctime:  # the wall clock releases it: no watermark delay on top
                release = Release(ReleaseKind.INTERVAL_BOUND, after_ms=reach, delay_ms=None, span_ms=span)
                parts.append(self._side(node, side, reach, release, Growth.NONE))
                continue
            release = Release(ReleaseKind.INTERVAL_BOUND, after_ms=reach, delay_ms=delay or 0, span_ms=span)
            parts.append(self._side(node, side, reach + (delay or 0), release, Growth.NONE))
        return StateInfo(node, node.kind, tuple(parts), watermark_delay_ms=delay)

    def _window_join(self, node: WindowJoin) -> StateInfo:
        delay = self.delay(node)
        size = node.window.size_ms or node.window.gap_ms
        retention, release = (size or 0) + (delay or 0), Release(ReleaseKind.WINDOW_END, after_ms=size, delay_ms=delay or 0)
        parts = tuple(
            replace(self._side(node, side, retention, release, Growth.NONE),
                    arrives_closed=self.arrives_closed(node.inputs[side], (node.left_window, node.right_window)[side]))
            for side in (0, 1)
        )
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
