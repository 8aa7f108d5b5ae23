"""The state analysis in words: every sentence EXPLAIN, the shell and the rules print about what
an operator keeps is rendered here, from the typed facts of ``planner.analysis.state.facts``."""

from __future__ import annotations

from planner.analysis.state.facts import (
    Extra,
    Grouping,
    Growth,
    Never,
    ReleaseKind,
    StateInfo,
    StatePart,
    StoredKind,
    TtlClock,
)
from planner.durations import format_duration

_NEVER = {
    Never.NO_TTL: " (no TTL, no window)",
    Never.TIME_BUCKET: ": the key includes a time bucket, and old buckets stay",
    Never.NO_WATERMARK_WINDOW: ": without a watermark windows never close",
    Never.NO_WATERMARK_ROWS: ": no watermark, so rows never expire",
    Never.REGULAR_JOIN: ": a regular join keeps rows forever",
    Never.VERSIONED_NO_WATERMARK: ": the versioned table has no watermark, so a row waits for it forever",
    Never.NO_WATERMARK_VERSIONS: ": without a watermark no version is ever dropped",
    Never.LATEST_VERSION: " for a key's latest version (older versions are dropped once the watermark passes them)",
    Never.DISTINCT_SETS: ": the sets of seen values are never released",
    Never.NO_WATERMARK_SORT: ": without a watermark no row is ever ready",
    Never.NOT_TIME_ATTRIBUTE: ": sorted by a column that is not a time attribute",
    Never.RANKING_INPUT: ": a row leaves only when its input retracts it (a retraction may bring any row into the top)",
    Never.OVER_INPUT: ": a row leaves only when its input retracts it (any change may move the frames of the rows after it)",
}

_EXTRAS = {
    Extra.DISTINCT_SETS: " plus the distinct values seen per group (COUNT(DISTINCT ...))",
    Extra.INPUT_VALUES: " plus every input value per group (MIN/MAX over updates must handle retractions)",
    Extra.WAITING: ", plus rows waiting for the watermark",
    Extra.UNBOUNDED_MATCH: " (no WITHIN: a match may stay open forever)",
    Extra.MATCH_COUNTS: ", each with how many rows of the other side it matches",
}


def _dur(ms: int | None) -> str:
    return format_duration(ms or 0)


def _keys(part: StatePart, empty: str = "") -> str:
    return ", ".join(part.key_labels or part.keys) or empty


def stored_text(part: StatePart, extras: bool = True) -> str:
    """What one entry of the part is (``extras``: with what it holds besides)."""
    s = part.stored
    tables = ", ".join(s.tables)
    main = {
        StoredKind.ACCUMULATOR: "one accumulator row",
        StoredKind.DISTINCT_ROW: "one row",
        StoredKind.WINDOW_ACCUMULATOR: "one accumulator" + (f" (a row is in {s.count} windows)" if (s.count or 1) > 1 else ""),
        StoredKind.ROWS: f"every row of {tables or 'the input'}",
        StoredKind.UPSERT_ROWS: f"the current row per upsert key of {tables or 'the input'}",
        StoredKind.VERSIONS: f"the versions of {tables or 'the versioned table'} (the latest, and any newer than the watermark)",
        StoredKind.LAST_ROW: "the last row",
        StoredKind.FIRST_MARKER: "a marker (the key was seen)",
        StoredKind.WINDOW_ROW: "the rows of each key and window (one emitted at window end)",
        StoredKind.TOP_ROWS: "the top row" if s.count == 1 else f"the top {s.count} rows",
        StoredKind.WINDOW_RANKED: f"the rows of each window and partition (top {s.count} emitted at window end)",
        StoredKind.DISTINCT_VALUES: f"every distinct value of {', '.join(s.columns)} seen",
        StoredKind.OVER_ACCUMULATOR: "one accumulator per partition (UNBOUNDED PRECEDING)",
        StoredKind.OVER_ROWS: f"the last {(s.count or 0) + 1} rows (the frame: {s.count} preceding and the current one) per partition",
        StoredKind.OVER_RANGE: f"the rows of the last {_dur(s.span_ms)} per partition",
        StoredKind.PARTIAL_MATCHES: "rows of partial matches",
        StoredKind.FIRST_ROWS: f"the first {s.count} rows",
        StoredKind.PARTITION_ROWS: f"every row of the input (the top {s.count} emitted)",
        StoredKind.WAITING_ROWS: "rows waiting for the watermark to pass their time",
    }[s.kind]
    return main + ("".join(_EXTRAS[e] for e in s.extras) if extras else "")


def per_text(part: StatePart) -> str:
    """What the entries are kept per."""
    keys = _keys(part)
    return {
        Grouping.KEY: f"per key ({keys})",
        Grouping.GLOBAL_ROW: "one global row",
        Grouping.WINDOW_AND_KEY: f"per open window and key ({keys})",
        Grouping.WINDOW: "per open window",
        Grouping.SESSION_AND_KEY: f"per open session and key ({keys})",
        Grouping.GLOBAL_SESSION: "one global session",
        Grouping.JOIN_KEY: f"by join key ({keys})",
        Grouping.NO_JOIN_KEY: "in one list (no equi-join key)",
        Grouping.PARTITION: f"per partition ({keys})",
        Grouping.GLOBAL_PARTITION: "one global partition",
        Grouping.GLOBAL_RANKING: "one global ranking",
        Grouping.WINDOW_AND_PARTITION: f"per window and partition ({keys})",
        Grouping.KEY_AND_WINDOW: f"per window and key ({keys})",
        Grouping.TOTAL: "in total",
        Grouping.TIME_ORDER: "in order of time",
    }[part.grouping]


def _never(part: StatePart) -> str:
    r = part.release
    if r.kind == ReleaseKind.FINITE_DOMAIN:
        tail = ": one latest version per key" if part.stored.kind == StoredKind.VERSIONS else ""
        return ", but the keys come from a finite domain" + tail
    return _NEVER[r.never] if r.never is not None else ""


def _ttl(part: StatePart) -> str:
    r = part.release
    clock = {
        TtlClock.LAST_UPDATE: f"{_dur(r.after_ms)} after a key's last update",
        TtlClock.STORED: f"{_dur(r.after_ms)} after the row was stored",
        TtlClock.LAST_ROW_EITHER_SIDE: f"{_dur(r.after_ms)} after the key's last row on either side",
    }
    return f"the state TTL ({clock[r.ttl_clock or TtlClock.LAST_UPDATE]})"


def bound_text(part: StatePart) -> str:
    """What releases an entry, as a noun phrase ("window end + watermark delay (1 min + 5 s)")."""
    r = part.release
    kind = r.kind
    if kind in (ReleaseKind.NEVER, ReleaseKind.FINITE_DOMAIN):
        return "nothing" + _never(part)
    if kind == ReleaseKind.TTL:
        return _ttl(part)
    if kind == ReleaseKind.WINDOW_END and r.delay_ms is None:
        return f"window end on the wall clock ({_dur(r.after_ms)}; processing time)"
    if kind == ReleaseKind.WINDOW_END and part.arrives_closed:
        return (
            f"window end + watermark delay ({_dur(r.after_ms)} + {_dur(r.delay_ms)}), which has passed when its rows "
            "arrive (the window's aggregation emits them as it closes): kept only within that micro-batch"
        )
    if kind == ReleaseKind.WINDOW_END:
        return f"window end + watermark delay ({_dur(r.after_ms)} + {_dur(r.delay_ms)})"
    if kind == ReleaseKind.SESSION_END:
        gap = f"{_dur(r.after_ms)} + {_dur(r.delay_ms)}"
        if r.keyed:
            return (
                f"the key's last row + the session gap + watermark delay ({gap}): only keys with a row "
                "in that span keep a session open"
            )
        return f"the last row + the session gap + watermark delay ({gap}); one session at a time"
    if kind == ReleaseKind.INTERVAL_BOUND:
        if r.delay_ms is None:
            return f"the interval bound on the wall clock ({_dur(r.after_ms)}; interval width {_dur(r.span_ms)}; processing time)"
        return (
            f"the interval bound + watermark delay ({_dur(r.after_ms)} + {_dur(r.delay_ms)}; "
            f"interval width {_dur(r.span_ms)})"
        )
    if kind == ReleaseKind.OTHER_SIDE_WATERMARK:
        other = "right" if part.input_index == 0 else "left"
        return (
            f"the {other} side's watermark passing the row's `{r.column}` (the join condition bounds it "
            f"by the {other} side's event time)"
        )
    if kind == ReleaseKind.WATERMARK:
        if part.stored.kind == StoredKind.WAITING_ROWS:
            return f"the watermark delay ({_dur(r.delay_ms)})"
        return f"the watermark ({_dur(r.delay_ms)}): a row waits until the right side has caught up"
    if kind == ReleaseKind.PROCESSING_TIME:
        return "processing time (rows leave as they arrive)"
    if kind == ReleaseKind.FRAME_RANGE:
        return (
            f"the watermark passing a row's time + the frame's range ({_dur(r.after_ms)} + watermark delay "
            f"{_dur(r.delay_ms)}): a partition with no row in that span is cleared"
        )
    if kind == ReleaseKind.WITHIN:
        return f"WITHIN {_dur(r.after_ms)} + watermark delay"
    if kind == ReleaseKind.LIMIT:
        return f"LIMIT {r.count}"
    # SINGLE: one global group, session, ranking or partition, or a join side that is one row
    if part.stored.kind == StoredKind.UPSERT_ROWS:
        return "a single row (the side is one global row, such as a scalar subquery's value)"
    if part.stored.kind == StoredKind.TOP_ROWS:
        return f"{r.count} rows in total"
    if part.grouping == Grouping.GLOBAL_PARTITION:
        return "a single partition"
    return "a single global group"


def released_text(part: StatePart) -> str:
    """``bound_text`` as a phrase: "released after window end + ...", "never released (no TTL, ...)"."""
    if part.release.kind in (ReleaseKind.NEVER, ReleaseKind.FINITE_DOMAIN):
        return "never released" + _never(part)
    return f"released after {bound_text(part)}"


def growth_text(part: StatePart) -> str:
    if part.growth == Growth.TIME:
        return f"time (a new key per `{part.time_derived_key}`, never released)"
    if part.growth == Growth.KEYS:
        return f"distinct keys ({_keys(part, 'all columns')}), never released"
    return "every input row, never released"


def reason_text(info: StateInfo) -> str:
    """Why the operator's verdict is what it is."""
    if not info.parts:
        return "keeps nothing"
    unbounded = [p for p in info.parts if not p.bounded]
    if not unbounded:
        return "; ".join(f"{p.label}: {p.released}" for p in info.parts)
    return "; ".join(f"{p.label}: growing with {growth_text(p)}" for p in unbounded)
