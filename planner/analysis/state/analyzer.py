"""State analysis: for each stateful operator, what it stores, what bounds it, what makes it grow.

A verdict is *bounded* when every part of the state is released after a fixed time (window end,
interval bound, TTL, the watermark) or when its keys come from a finite, known domain; otherwise
it is *unbounded*: it grows with the number of distinct keys, or with every input row. Each fact
is set here, as a typed value (``planner.analysis.state.facts``), where it is decided.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from planner.analysis.lineage import Lineage
from planner.analysis.physical import Physical
from planner.analysis.properties import NodeProps
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
from planner.analysis.state.joins import JoinState
from planner.logical.fields import TimeKind
from planner.logical.joins import IntervalJoin, Join, TemporalJoin, WindowJoin
from planner.logical.operators import (
    ChangelogNormalize,
    Deduplicate,
    GroupAggregate,
    MatchRecognize,
    Node,
    OverAggregate,
    Sort,
    TopN,
    WindowAggregate,
    window_on_proctime,
)
from planner.logical.specs import AggFunc, WindowKind
from planner.logical.visit import distinct_nodes


class StateAnalyzer(JoinState, AnalyzerBase):
    """The state of each stateful operator: aggregations, rankings, OVER, MATCH_RECOGNIZE and
    sorts here, joins in ``planner.analysis.state.joins``."""

    def _ranking_over_changes(
        self, node: Node, keys: tuple[str, ...], n: int | None, ttl: int | None, *, over: bool = False,
    ) -> StatePart:
        """What a ranking (or an OVER aggregation, ``over``) over changes keeps: every row its
        input holds (a row leaves when the input retracts it), per partition: rows of an upsert
        input grow with its keys."""
        child = node.inputs[0]
        upstream = self.props[child.node_id].changelog
        if ttl:
            growth, retention = Growth.NONE, ttl
            release = Release(ReleaseKind.TTL, after_ms=ttl, ttl_clock=TtlClock.LAST_UPDATE)
        else:
            growth = Growth.KEYS if upstream.key else Growth.ROWS
            retention, release = None, Release(ReleaseKind.NEVER, never=Never.OVER_INPUT if over else Never.RANKING_INPUT)
        info = self._keys(child, keys)
        if growth == Growth.KEYS:  # the input's current rows: one per upsert key
            info = {**self._keys(child, upstream.key), "keys": upstream.key}
        return StatePart(
            role=PartRole.WINDOW_ROWS if over else PartRole.RANKED_ROWS,
            stored=Stored(StoredKind.PARTITION_ROWS, count=n),
            grouping=Grouping.PARTITION if keys else Grouping.GLOBAL_RANKING,
            release=release,
            retention_ms=retention,
            growth=growth,
            row_fields=tuple(child.field_names()),
            **info,
        )

    def analyze(self, node: Node) -> StateInfo | None:
        if not node.stateful:
            return None
        return ANALYZERS[type(node)](self, node)

    # -- aggregations --------------------------------------------------------------------------

    def _group_agg(self, node: GroupAggregate) -> StateInfo:
        ttl = node.state_ttl(self.ttl)
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
        if not self.has_watermark(node.input) and not node.on_proctime:
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
        if node.on_proctime:  # closed by the wall clock: no watermark delay on top
            retention, release = w.size_ms or 0, Release(ReleaseKind.WINDOW_END, after_ms=w.size_ms, delay_ms=None)
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

    # -- ranking -------------------------------------------------------------------------------

    def _dedup(self, node: Deduplicate) -> StateInfo:
        if node.window is not None:
            # on processing time the changelog operator keeps the one row per key and window
            proctime = window_on_proctime(node, node.window)
            retention, release = self._window_release(node, node.window.size_ms, proctime)
            stored = Stored(StoredKind.TOP_ROWS, count=1) if proctime else Stored(StoredKind.WINDOW_ROW)
            part = StatePart(
                role=PartRole.KEPT_ROWS, stored=stored, grouping=Grouping.KEY_AND_WINDOW,
                release=release, retention_ms=retention, growth=Growth.NONE, keys=node.keys,
                key_labels=tuple(self.lineage.display(node.input, k) for k in node.keys), row_fields=tuple(node.field_names()),
                arrives_closed=self.arrives_closed(node.input, node.window.id),
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=self.delay(node))
        ttl = node.state_ttl(self.ttl)
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

    def _normalize(self, node: ChangelogNormalize) -> StateInfo:
        """The last row of every key of an upsert source: a delete releases its key, otherwise
        only a TTL or a finite key domain bounds it (as a keep-last deduplication)."""
        ttl = node.state_ttl(self.ttl)
        keyed = self._keyed(node, node.keys, ttl)
        part = StatePart(
            role=PartRole.KEPT_ROWS,
            stored=Stored(StoredKind.LAST_ROW),
            grouping=Grouping.KEY,
            release=keyed.release,
            retention_ms=keyed.retention_ms,
            growth=keyed.growth,
            row_fields=tuple(node.field_names()),
            **self._keys(node.input, node.keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _topn(self, node: TopN) -> StateInfo:
        if node.window is not None:
            # on processing time the changelog operator keeps only the top N per partition and window
            proctime = window_on_proctime(node, node.window)
            retention, release = self._window_release(node, node.window.size_ms, proctime)
            stored_kind = StoredKind.TOP_ROWS if proctime else StoredKind.WINDOW_RANKED
            part = StatePart(
                role=PartRole.RANKED_ROWS, stored=Stored(stored_kind, count=node.n),
                grouping=Grouping.WINDOW_AND_PARTITION, release=release, retention_ms=retention, growth=Growth.NONE,
                keys=node.partition_keys, key_labels=node.partition_keys, rows_per_key=node.n,
                row_fields=tuple(node.field_names()), arrives_closed=self.arrives_closed(node.input, node.window.id),
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=self.delay(node))
        ttl = node.state_ttl(self.ttl)
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
        ttl = node.state_ttl(self.ttl)
        p = self.physical.get(node.node_id)
        if p is not None and p.over_changes:  # every row its input holds (over_changes.py)
            part = self._ranking_over_changes(node, keys, None, None, over=True)
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=self.delay(node))
        keyed = self._keyed(node, keys, ttl)
        growth, release = keyed.growth, keyed.release
        waiting = (Extra.WAITING,) if node.waits_on_watermark() else ()  # on processing time nothing waits
        if node.preceding is None:
            stored = Stored(StoredKind.OVER_ACCUMULATOR, extras=waiting)
        elif node.rows:
            stored = Stored(StoredKind.OVER_ROWS, count=node.preceding, extras=waiting)
        else:
            stored = Stored(StoredKind.OVER_RANGE, span_ms=node.preceding, extras=waiting)
        retention = keyed.retention_ms
        delay = self.delay(node)
        if not node.rows and node.preceding is not None and node.waits_on_watermark() and delay is not None and not ttl:
            # Flink clears a partition once the watermark is past its last row + the range: rows
            # and partitions both leave with event time
            retention = node.preceding + delay
            growth, release = Growth.NONE, Release(ReleaseKind.FRAME_RANGE, after_ms=node.preceding, delay_ms=delay)
        elif not keys:
            growth, release = Growth.NONE, Release(ReleaseKind.SINGLE)
        part = StatePart(
            role=PartRole.WINDOW_ROWS,
            stored=stored,
            grouping=Grouping.PARTITION if keys else Grouping.GLOBAL_PARTITION,
            release=release,
            retention_ms=retention,
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
            keyed = self._keyed(node, node.partition_keys, node.state_ttl(self.ttl))
            part = StatePart(
                role=PartRole.PARTIAL_MATCHES, stored=Stored(StoredKind.PARTIAL_MATCHES, extras=(Extra.UNBOUNDED_MATCH,)),
                grouping=Grouping.PARTITION, release=keyed.release, retention_ms=keyed.retention_ms,
                # a quantifier without an upper bound (*, +, {n,}) lets one partial match take in
                # rows without end; otherwise each partition holds a few rows, for as many partitions
                growth=(Growth.ROWS if _open_quantifier(node.pattern) else keyed.growth) if keyed.growth != Growth.NONE else Growth.NONE,
                row_fields=tuple(node.input.field_names()), **keyinfo,
            )
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)

    def _sort(self, node: Sort) -> StateInfo:
        delay = self.delay(node)
        if node.limit is not None and self.retract_ranking(node):
            part = self._ranking_over_changes(node, (), node.limit, node.state_ttl(self.ttl))
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
    ChangelogNormalize: StateAnalyzer._normalize,
    TopN: StateAnalyzer._topn,
    OverAggregate: StateAnalyzer._over,
    MatchRecognize: StateAnalyzer._match,
    Sort: StateAnalyzer._sort,
}


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


def _open_quantifier(pattern: str) -> bool:
    return re.search(r"[*+]|\{\s*\d*\s*,\s*\}", pattern) is not None
