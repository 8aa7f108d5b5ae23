"""State analysis: for each stateful operator, what it stores, what bounds it, what makes it grow.

A verdict is *bounded* when every part of the state is released after a fixed time (window end,
interval bound, TTL, the watermark) or when its keys come from a finite, known domain; otherwise
it is *unbounded*: it grows with the number of distinct keys, or with every input row.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from sqlglot import exp

from planner.durations import format_duration
from planner.logical.fields import TimeKind
from planner.logical.operators import (
    Deduplicate,
    GroupAggregate,
    IntervalJoin,
    Join,
    LookupJoin,
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
    is_stateful,
)
from planner.properties import NodeProps
from planner.lineage import Lineage


class Verdict(str, Enum):
    BOUNDED = "bounded"
    UNBOUNDED = "unbounded"


class Growth(str, Enum):
    NONE = "none"  # released after a fixed time: plateaus
    KEYS = "keys"  # one entry per distinct key, kept forever
    ROWS = "rows"  # every input row, kept forever
    TIME = "time"  # a new key per time bucket, kept forever


TTL_BOUND = "the state TTL"


@dataclass(frozen=True)
class StatePart:
    """One thing an operator keeps: the rows of one join side, the accumulators of a group, ..."""

    label: str
    stores: str  # what one entry is
    per: str  # what entries are per: "per key (auction)", "per window and key"
    retention_ms: int | None  # how long an entry lives after its time; None: until TTL / forever
    bound: str  # what releases it, in words
    growth: Growth
    keys: tuple[str, ...] = ()  # key columns (plan names)
    key_labels: tuple[str, ...] = ()  # the same keys as the user wrote them
    key_sources: tuple[tuple[str, str], ...] = ()  # (table, column) behind each key
    time_derived_key: str | None = None  # a key computed from event time (grows with time)
    source_tables: tuple[str, ...] = ()  # where the rows come from (for the rate)
    rows_per_key: int | None = None  # Top-N: N rows per key; OVER ROWS n: n+1
    row_fields: tuple[str, ...] = ()  # the columns one stored row has
    input_index: int = 0  # which input of the operator feeds this part (join: 0 left, 1 right)
    buckets_per_day: float | None = None  # TIME growth: new time buckets per day
    released_by: str | None = None  # a row is dropped once the other side's watermark passes this column

    @property
    def bounded(self) -> bool:
        return self.growth == Growth.NONE

    @property
    def released(self) -> str:
        """``bound`` as a phrase: "released after window end + ...", "never released (no TTL, ...)"."""
        if self.bound.startswith("nothing"):
            return "never released" + self.bound[len("nothing"):]
        return f"released after {self.bound}"

    @property
    def by_ttl(self) -> bool:
        """Released only by a state TTL (the wording is set in one place: ``_unbounded_keyed``)."""
        return self.bound.startswith(TTL_BOUND)


@dataclass(frozen=True)
class StateInfo:
    node: Node = field(repr=False)
    operator: str
    parts: tuple[StatePart, ...]
    ttl_ms: int | None = None  # a TTL in force (setting or hint)
    watermark_delay_ms: int | None = None

    @property
    def verdict(self) -> Verdict:
        return Verdict.BOUNDED if all(p.bounded for p in self.parts) else Verdict.UNBOUNDED

    @property
    def reason(self) -> str:
        unbounded = [p for p in self.parts if not p.bounded]
        if not self.parts:
            return "keeps nothing: each row looks up the other table when it arrives"
        if not unbounded:
            return "; ".join(f"{p.label}: {p.released}" for p in self.parts)
        return "; ".join(f"{p.label}: growing with {_growth_words(p)}" for p in unbounded)

    def __str__(self) -> str:
        return f"{self.operator}: {self.verdict.value} — {self.reason}"


def _growth_words(p: StatePart) -> str:
    if p.growth == Growth.TIME:
        return f"time (a new key per `{p.time_derived_key}`, never released)"
    if p.growth == Growth.KEYS:
        return f"distinct keys ({', '.join(p.key_labels or p.keys) or 'all columns'}), never released"
    return "every input row, never released"


def _ttl_for(node: Node, settings_ttl: int | None, side: int = 0) -> int | None:
    hint = node.state_ttl_ms[side] if len(node.state_ttl_ms) > side else None
    return hint if hint is not None else settings_ttl


def _released(ms: int | None, what: str) -> tuple[int | None, str]:
    return ms, what


class StateAnalyzer:
    def __init__(self, props: dict[int, NodeProps], lineage: Lineage, windows_ttl: int | None):
        self.props = props
        self.lineage = lineage
        self.ttl = windows_ttl  # table.exec.state.ttl, ms (None or 0: no TTL)

    def delay(self, node: Node) -> int | None:
        wm = self.props[id(node)].watermark
        return wm.delay_ms if wm.present else None

    def has_watermark(self, node: Node) -> bool:
        return self.props[id(node)].watermark.present

    # -- per operator --------------------------------------------------------------------------

    def analyze(self, node: Node) -> StateInfo | None:
        if not is_stateful(node):
            return None
        if isinstance(node, WindowAggregate):
            return self._window_agg(node)
        if isinstance(node, GroupAggregate):
            return self._group_agg(node)
        if isinstance(node, IntervalJoin):
            return self._interval_join(node)
        if isinstance(node, WindowJoin):
            return self._window_join(node)
        if isinstance(node, TemporalJoin):
            return self._temporal_join(node)
        if isinstance(node, LookupJoin):
            return StateInfo(node, node.kind, (), watermark_delay_ms=self.delay(node))
        if isinstance(node, Join):
            return self._regular_join(node)
        if isinstance(node, Deduplicate):
            return self._dedup(node)
        if isinstance(node, TopN):
            return self._topn(node)
        if isinstance(node, OverAggregate):
            return self._over(node)
        if isinstance(node, MatchRecognize):
            return self._match(node)
        if isinstance(node, Sort):
            return self._sort(node)
        return None

    def _keys(self, node: Node, keys: tuple[str, ...]) -> dict:
        src = self.lineage.sources(node, keys)
        time_key = next((k for k in keys if self.lineage.time_derived(node, k)), None)
        return {
            "keys": keys,
            "key_labels": tuple(self.lineage.display(node, k) for k in keys),
            "key_sources": tuple(s for s in src if s is not None),
            "time_derived_key": self.lineage.display(node, time_key) if time_key else None,
            "source_tables": self.lineage.tables(node),
        }

    def _unbounded_keyed(self, node: Node, keys: tuple[str, ...], ttl: int | None) -> tuple[Growth, int | None, str]:
        info = self._keys(node.inputs[0] if node.inputs else node, keys)
        if ttl:
            return Growth.NONE, ttl, f"{TTL_BOUND} ({format_duration(ttl)} after a key's last update)"
        if info["time_derived_key"]:
            return Growth.TIME, None, "nothing: the key includes a time bucket, and old buckets stay"
        if keys and self.lineage.finite_domain(node.inputs[0], keys):
            return Growth.NONE, None, "nothing, but the keys come from a finite domain"
        return (Growth.KEYS if keys else Growth.NONE), None, "nothing (no TTL, no window)"

    def _buckets_per_day(self, node: Node, key: str | None) -> float | None:
        if key is None or not node.inputs:
            return None
        ms = self.lineage.bucket_ms(node.inputs[0], key)
        return 86_400_000 / ms if ms else None

    def _group_agg(self, node: GroupAggregate) -> StateInfo:
        ttl = _ttl_for(node, self.ttl)
        growth, retention, bound = self._unbounded_keyed(node, node.keys, ttl)
        keyinfo = self._keys(node.input, node.keys)
        what = "one row" if node.distinct_only else "one accumulator row"
        if any(a.distinct for a in node.aggs):
            what += " plus the distinct values seen per group (COUNT(DISTINCT ...))"
        if not self.props[id(node.input)].changelog.insert_only and any(a.func in ("MIN", "MAX") for a in node.aggs):
            what += " plus every input value per group (MIN/MAX over updates must handle retractions)"
        if not node.keys:
            growth, bound = Growth.NONE, "a single global group"
        parts = [
            StatePart(
                label="distinct rows" if node.distinct_only else "accumulators",
                stores=what,
                per=f"per key ({', '.join(keyinfo['key_labels'])})" if node.keys else "one global row",
                retention_ms=retention,
                bound=bound,
                growth=growth,
                row_fields=tuple(node.field_names()),
                buckets_per_day=self._buckets_per_day(node, next((k for k in node.keys if self.lineage.time_derived(node.input, k)), None)),
                **keyinfo,
            )
        ]
        distinct_args = sorted({a.args[0].name for a in node.aggs if a.distinct and a.args and hasattr(a.args[0], "name")})
        if distinct_args:
            # COUNT(DISTINCT x) keeps the set of x values seen per group: it grows with rows
            parts.append(
                StatePart(
                    label="distinct values",
                    stores=f"every distinct value of {', '.join(distinct_args)} seen",
                    per=f"per key ({', '.join(node.keys)})" if node.keys else "in total",
                    retention_ms=retention,
                    bound=bound if growth == Growth.NONE and retention is not None else "nothing: the sets of seen values are never released",
                    growth=Growth.NONE if (retention is not None and growth == Growth.NONE) else Growth.KEYS,
                    keys=tuple(node.keys) + tuple(distinct_args),
                    source_tables=keyinfo["source_tables"],
                    row_fields=tuple(distinct_args),
                )
            )
        return StateInfo(node, node.kind, tuple(parts), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _window_agg(self, node: WindowAggregate) -> StateInfo:
        w = node.window
        delay = self.delay(node.input)
        keys = node.keys
        if not self.has_watermark(node.input) and not _proctime_window(node, w):
            part = StatePart(
                label="window accumulators",
                stores="one accumulator",
                per=f"per window and key ({', '.join(keys)})" if keys else "per window",
                retention_ms=None,
                bound="nothing: without a watermark windows never close",
                growth=Growth.TIME,
                time_derived_key=f"{w.kind.value.lower()} window",
                **{k: v for k, v in self._keys(node.input, keys).items() if k != "time_derived_key"},
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=None)
        if w.kind == WindowKind.SESSION:
            # a session ends once the watermark passes its last row + the gap, and then it is
            # emitted and dropped. What is open at any time is one session per key with a row in
            # the last gap + watermark delay: at most the rows of that span, however many keys
            # come and go over time (a key that never pauses holds one session, one accumulator).
            # So the state plateaus like a window as long as the gap; only a watermark that never
            # advances keeps sessions forever (handled above: SE107).
            gap = f"{format_duration(w.gap_ms)} + {format_duration(delay or 0)}"
            part = StatePart(
                label="session accumulators",
                stores="one accumulator",
                per=f"per open session and key ({', '.join(keys)})" if keys else "one global session",
                retention_ms=(w.gap_ms or 0) + (delay or 0) if keys else None,
                bound=(
                    f"the key's last row + the session gap + watermark delay ({gap}): only keys with a row "
                    "in that span keep a session open"
                ) if keys else f"the last row + the session gap + watermark delay ({gap}); one session at a time",
                growth=Growth.NONE,
                row_fields=tuple(node.field_names()),
                **{k: v for k, v in self._keys(node.input, keys).items() if k != "time_derived_key"},
            )
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)
        retention = (w.size_ms or 0) + (delay or 0)
        bound = f"window end + watermark delay ({format_duration(w.size_ms)} + {format_duration(delay or 0)})"
        panes = 1
        if w.kind == WindowKind.HOP and w.size_ms and w.slide_ms:
            panes = w.size_ms // w.slide_ms
        elif w.kind == WindowKind.CUMULATE and w.size_ms and w.step_ms:
            panes = w.size_ms // w.step_ms
        part = StatePart(
            label="window accumulators",
            stores="one accumulator" + (f" (a row is in {panes} windows)" if panes > 1 else ""),
            per=f"per open window and key ({', '.join(keys)})" if keys else "per open window",
            retention_ms=retention,
            bound=bound,
            growth=Growth.NONE,
            rows_per_key=panes,
            row_fields=tuple(node.field_names()),
            **{k: v for k, v in self._keys(node.input, keys).items() if k != "time_derived_key"},
        )
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)

    def _side(self, join: Join, side: int, label: str, retention: int | None, bound: str, growth: Growth, released_by: str | None = None) -> StatePart:
        child = join.inputs[side]
        n_left = len(join.left.fields)
        keys = tuple(k[side] for k in join.equi_keys)
        child_names = child.field_names()
        # join keys are named in the join's output; map them to the child's columns
        names = join.field_names()
        offset = 0 if side == 0 else n_left
        key_cols = tuple(child_names[names.index(k) - offset] for k in keys if k in names)
        info = self._keys(child, key_cols)
        info.pop("time_derived_key")
        changelog = self.props[id(child)].changelog
        stores = "every row" if changelog.insert_only else "the current row per upsert key"
        if not changelog.insert_only and changelog.key and growth == Growth.ROWS:
            growth = Growth.KEYS
        return StatePart(
            released_by=released_by,
            input_index=side,
            label=label,
            stores=f"{stores} of {', '.join(self.lineage.tables(child)) or 'the input'}",
            per=f"by join key ({', '.join(info['key_labels'])})" if key_cols else "in one list (no equi-join key)",
            retention_ms=retention,
            bound=bound,
            growth=growth,
            row_fields=tuple(child_names),
            **info,
        )

    def _evicted_by(self, node: Join, side: int) -> str | None:
        """A column of this side that the condition bounds from below by the other side's event
        time (``s.x >= o.rowtime + c``): once the other side's watermark passes it, no future row
        can match, and Spark drops the row. None if there is no such bound."""
        from planner.binder.joins import _comparisons, conjuncts, time_offset
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
        for c in conjuncts(node.condition):
            for a, op, b in _comparisons(c):
                ta, tb = time_offset(a), time_offset(b)
                if ta is None or tb is None:
                    continue
                (fa, _), (fb, _) = ta, tb
                if fa in own and fb in other_fields:
                    s_col, o_col, s_op = fa, fb, op
                elif fb in own and fa in other_fields:
                    s_col, o_col = fb, fa
                    s_op = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "="}[op]
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
        for side, label in ((0, "left side"), (1, "right side")):
            ttl = _ttl_for(node, self.ttl, side)
            evicting = self._evicted_by(node, side)
            if ttl:
                parts.append(self._side(node, side, label, ttl, f"{TTL_BOUND} ({format_duration(ttl)})", Growth.NONE))
            elif evicting is not None:
                other = "right" if side == 0 else "left"
                parts.append(self._side(
                    node, side, label, None,
                    f"the {other} side's watermark passing the row's `{evicting}` (the join condition bounds it by the {other} side's event time)",
                    Growth.NONE,
                    released_by=evicting,
                ))
            else:
                parts.append(self._side(node, side, label, None, "nothing: a regular join keeps rows forever", Growth.ROWS))
        return StateInfo(node, node.kind, tuple(parts), ttl_ms=_ttl_for(node, self.ttl), watermark_delay_ms=self.delay(node))

    def _interval_join(self, node: IntervalJoin) -> StateInfo:
        delay = self.delay(node)
        span = node.upper_ms - node.lower_ms
        parts = []
        for side, label in ((0, "left side"), (1, "right side")):
            if not self.has_watermark(node.inputs[side]) and node.field(node.left_time).time == TimeKind.ROWTIME:
                parts.append(self._side(node, side, label, None, "nothing: no watermark, so rows never expire", Growth.ROWS))
                continue
            # left.ts BETWEEN right.ts + lower AND right.ts + upper: a left row at t matches right
            # rows up to t - lower, a right row at s matches left rows up to s + upper; a row waits
            # until the other side's watermark has passed that
            reach = -node.lower_ms if side == 0 else node.upper_ms
            retention = max(reach, 0) + (delay or 0)
            parts.append(
                self._side(node, side, label, retention,
                           f"the interval bound + watermark delay ({format_duration(max(reach, 0))} + {format_duration(delay or 0)}; interval width {format_duration(span)})",
                           Growth.NONE)
            )
        return StateInfo(node, node.kind, tuple(parts), watermark_delay_ms=delay)

    def _window_join(self, node: WindowJoin) -> StateInfo:
        delay = self.delay(node)
        w = node.window
        retention = (w.size_ms or w.gap_ms or 0) + (delay or 0)
        parts = tuple(
            self._side(node, side, label, retention,
                       f"window end + watermark delay ({format_duration(w.size_ms or w.gap_ms)} + {format_duration(delay or 0)})", Growth.NONE)
            for side, label in ((0, "left side"), (1, "right side"))
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
        versioned = ", ".join(self.lineage.tables(node.right)) or "the versioned table"
        if not self.has_watermark(node.right):
            left = self._side(node, 0, "left side", None,
                              "nothing: the versioned table has no watermark, so a row waits for it forever", Growth.ROWS)
            right = self._side(node, 1, "versions", None,
                               "nothing: without a watermark no version is ever dropped", Growth.ROWS)
        else:
            left = self._side(node, 0, "left side", delay or 0,
                              f"the watermark ({format_duration(delay or 0)}): a row waits until the right side has caught up", Growth.NONE)
            right = self._side(node, 1, "versions", None,
                               "nothing for a key's latest version (older versions are dropped once the watermark passes them)",
                               Growth.KEYS)
            if ttl:
                right = replace(right, growth=Growth.NONE, retention_ms=ttl,
                                bound=f"{TTL_BOUND} ({format_duration(ttl)} after the key's last row on either side)")
            elif self.lineage.finite_domain(node.right, right.keys):
                right = replace(right, growth=Growth.NONE,
                                bound="nothing, but the keys come from a finite domain: one latest version per key")
        right = replace(right, stores=f"the versions of {versioned} (the latest, and any newer than the watermark)")
        return StateInfo(node, node.kind, (left, right), ttl_ms=ttl, watermark_delay_ms=delay)

    def _dedup(self, node: Deduplicate) -> StateInfo:
        if node.window is not None:
            delay = self.delay(node)
            retention = (node.window.size_ms or 0) + (delay or 0)
            part = StatePart("kept rows", "one row per key and window", f"per window and key ({', '.join(node.keys)})",
                             retention, f"window end + watermark delay ({format_duration(node.window.size_ms)} + {format_duration(delay or 0)})",
                             Growth.NONE, row_fields=tuple(node.field_names()))
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)
        ttl = _ttl_for(node, self.ttl)
        growth, retention, bound = self._unbounded_keyed(node, node.keys, ttl)
        keep = "the last" if node.keep_last else "the first"
        part = StatePart(
            label="kept rows",
            stores=f"{keep} row" if node.keep_last else "a marker (the key was seen)",
            per=f"per key ({', '.join(node.keys)})",
            retention_ms=retention,
            bound=bound,
            growth=growth,
            row_fields=tuple(node.field_names()) if node.keep_last else node.keys,
            **self._keys(node.input, node.keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _topn(self, node: TopN) -> StateInfo:
        if node.window is not None:
            delay = self.delay(node)
            retention = (node.window.size_ms or 0) + (delay or 0)
            part = StatePart("ranked rows", f"the rows of each window and partition (top {node.n} emitted at window end)",
                             f"per window and partition ({', '.join(node.partition_keys)})", retention,
                             f"window end + watermark delay ({format_duration(node.window.size_ms)} + {format_duration(delay or 0)})",
                             Growth.NONE, rows_per_key=node.n, row_fields=tuple(node.field_names()))
            return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)
        ttl = _ttl_for(node, self.ttl)
        growth, retention, bound = self._unbounded_keyed(node, node.partition_keys, ttl)
        if not node.partition_keys:
            growth, bound = Growth.NONE, f"{node.n} rows in total"
        part = StatePart(
            label="ranked rows",
            stores=f"the top {node.n} rows",
            per=f"per partition ({', '.join(node.partition_keys)})" if node.partition_keys else "one global ranking",
            retention_ms=retention,
            bound=bound,
            growth=growth,
            rows_per_key=node.n,
            row_fields=tuple(node.field_names()),
            **self._keys(node.input, node.partition_keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=self.delay(node))

    def _over(self, node: OverAggregate) -> StateInfo:
        delay = self.delay(node)
        keys = node.partition_keys
        ttl = _ttl_for(node, self.ttl)
        growth, retention, bound = self._unbounded_keyed(node, keys, ttl)
        if node.preceding is None:
            stores = "one accumulator per partition (UNBOUNDED PRECEDING)"
        elif node.rows:
            stores = f"the last {node.preceding} rows per partition"
        else:
            stores = f"the rows of the last {format_duration(node.preceding)} per partition"
        if not keys:
            growth, bound = Growth.NONE, "a single partition"
        part = StatePart(
            label="window rows",
            stores=stores + ", plus rows waiting for the watermark",
            per=f"per partition ({', '.join(keys)})" if keys else "one global partition",
            retention_ms=retention,
            bound=bound,
            growth=growth,
            rows_per_key=(node.preceding + 1) if node.rows and node.preceding is not None else None,
            row_fields=tuple(node.input.field_names()),
            **self._keys(node.input, keys),
        )
        return StateInfo(node, node.kind, (part,), ttl_ms=ttl, watermark_delay_ms=delay)

    def _match(self, node: MatchRecognize) -> StateInfo:
        delay = self.delay(node)
        if node.within_ms is not None:
            part = StatePart("partial matches", "rows of partial matches", f"per partition ({', '.join(node.partition_keys)})",
                             node.within_ms + (delay or 0), f"WITHIN {format_duration(node.within_ms)} + watermark delay", Growth.NONE,
                             row_fields=tuple(node.input.field_names()))
        else:
            growth, retention, bound = self._unbounded_keyed(node, node.partition_keys, _ttl_for(node, self.ttl))
            part = StatePart("partial matches", "rows of partial matches (no WITHIN: a match may stay open forever)",
                             f"per partition ({', '.join(node.partition_keys)})", retention, bound,
                             Growth.ROWS if growth != Growth.NONE else growth, row_fields=tuple(node.input.field_names()),
                             **self._keys(node.input, node.partition_keys))
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)

    def _sort(self, node: Sort) -> StateInfo:
        delay = self.delay(node)
        if node.limit is not None:
            part = StatePart("sorted rows", f"the first {node.limit} rows", "in total", None, f"LIMIT {node.limit}", Growth.NONE,
                             rows_per_key=node.limit, row_fields=tuple(node.field_names()))
        else:
            first = node.input.field(node.order[0][0]) if node.order else None
            kind = first.time if first is not None else None
            if kind == TimeKind.PROCTIME:  # rows leave in arrival order, as the clock passes them
                retention, bound, growth = 0, "processing time (rows leave as they arrive)", Growth.NONE
            elif kind == TimeKind.ROWTIME and self.has_watermark(node):
                retention, bound, growth = delay, f"the watermark delay ({format_duration(delay or 0)})", Growth.NONE
            elif kind == TimeKind.ROWTIME:
                retention, bound, growth = None, "nothing: without a watermark no row is ever ready", Growth.ROWS
            else:  # not a time attribute: no watermark can ever pass a value of it
                retention, bound, growth = None, "nothing: sorted by a column that is not a time attribute", Growth.ROWS
            part = StatePart("buffered rows", "rows waiting for the watermark to pass their time", "in order of time",
                             retention, bound, growth, row_fields=tuple(node.field_names()))
        return StateInfo(node, node.kind, (part,), watermark_delay_ms=delay)


def _proctime_window(node: WindowAggregate, w: WindowSpec) -> bool:
    # after a window TVF its time column is a plain timestamp: ask the TVF's input
    for n in node.walk():
        if isinstance(n, WindowTVF) and n.window.id == w.id:
            f = n.input.field(w.time_field)
            return f is not None and f.time == TimeKind.PROCTIME
    f = node.input.field(w.time_field)  # a legacy GROUP BY TUMBLE(proctime, ...)
    return f is not None and f.time == TimeKind.PROCTIME


def analyze_state(plan: Node, props: dict[int, NodeProps], lineage: Lineage, ttl_ms: int | None) -> list[StateInfo]:
    analyzer = StateAnalyzer(props, lineage, ttl_ms)
    seen: set[int] = set()
    out = []
    for node in plan.walk():
        if id(node) in seen:
            continue
        seen.add(id(node))
        info = analyzer.analyze(node)
        if info is not None:
            out.append(info)
    return out


def _is_column(e: exp.Expr) -> bool:
    return isinstance(e, exp.Column)
