"""What an operator keeps, as typed facts set where the analysis decides them (DataFusion's
``Boundedness`` is the model): what one entry is (``Stored``), what it is kept per (``Grouping``),
what releases it (``Release``), and how the state grows (``Growth``). Prose is rendered from
these in one place, ``planner.analysis.state.text``; rules and renderers read the facts, never the words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.logical.operators import Node
    from planner.logical.specs import OperatorKind


class Verdict(StrEnum):
    BOUNDED = "bounded"
    UNBOUNDED = "unbounded"


class Growth(StrEnum):
    NONE = "none"  # released after a fixed time, or a finite set of keys: plateaus
    KEYS = "keys"  # one entry per distinct key, kept forever
    ROWS = "rows"  # every input row, kept forever
    TIME = "time"  # a new key per time bucket, kept forever


class PartRole(StrEnum):
    """Which part of an operator's state this is; the value is its label."""

    ACCUMULATORS = "accumulators"
    DISTINCT_ROWS = "distinct rows"
    DISTINCT_VALUES = "distinct values"
    WINDOW_ACCUMULATORS = "window accumulators"
    SESSION_ACCUMULATORS = "session accumulators"
    LEFT_SIDE = "left side"
    RIGHT_SIDE = "right side"
    VERSIONS = "versions"
    KEPT_ROWS = "kept rows"
    RANKED_ROWS = "ranked rows"
    WINDOW_ROWS = "window rows"
    PARTIAL_MATCHES = "partial matches"
    SORTED_ROWS = "sorted rows"
    BUFFERED_ROWS = "buffered rows"


class StoredKind(StrEnum):
    ACCUMULATOR = "accumulator"  # one accumulator row per group
    DISTINCT_ROW = "distinct row"  # SELECT DISTINCT: the row itself
    WINDOW_ACCUMULATOR = "window accumulator"
    ROWS = "rows"  # every row of a join side
    UPSERT_ROWS = "upsert rows"  # the current row per upsert key of a join side
    VERSIONS = "versions"  # a versioned table's versions (temporal join)
    LAST_ROW = "last row"  # keep-last deduplication
    FIRST_MARKER = "first marker"  # keep-first deduplication: the key was seen
    WINDOW_ROW = "window row"  # window deduplication: the rows of a key and window, one emitted at its end
    TOP_ROWS = "top rows"  # Top-N: the top ``count`` rows
    WINDOW_RANKED = "window ranked"  # window Top-N: the window's rows, top ``count`` emitted
    DISTINCT_VALUES = "distinct values"  # COUNT(DISTINCT ``columns``): every value seen
    OVER_ACCUMULATOR = "over accumulator"  # OVER UNBOUNDED PRECEDING
    OVER_ROWS = "over rows"  # OVER ROWS ``count`` PRECEDING
    OVER_RANGE = "over range"  # OVER RANGE ``span_ms`` PRECEDING
    PARTIAL_MATCHES = "partial matches"  # MATCH_RECOGNIZE
    FIRST_ROWS = "first rows"  # ORDER BY ... LIMIT ``count``
    PARTITION_ROWS = "partition rows"  # a ranking over changes: every row of the partition
    WAITING_ROWS = "waiting rows"  # rows waiting for the watermark to pass their time


class Extra(StrEnum):
    """What an entry holds besides its main content."""

    DISTINCT_SETS = "distinct sets"  # the distinct values seen per group (COUNT(DISTINCT ...))
    INPUT_VALUES = "input values"  # every input value per group (MIN/MAX over updates)
    WAITING = "waiting"  # rows waiting for the watermark (OVER)
    UNBOUNDED_MATCH = "unbounded match"  # no WITHIN: a partial match may stay open forever
    MATCH_COUNTS = "match counts"  # an outer, semi or anti join: how many rows each row matches


@dataclass(frozen=True)
class Stored:
    kind: StoredKind
    columns: tuple[str, ...] = ()  # DISTINCT_VALUES: the columns whose values are kept
    count: int | None = None  # TOP_ROWS / WINDOW_RANKED: N; OVER_ROWS: n; FIRST_ROWS: the limit; windows a row is in
    span_ms: int | None = None  # OVER_RANGE: the range
    tables: tuple[str, ...] = ()  # ROWS / UPSERT_ROWS / VERSIONS: where the rows come from
    extras: tuple[Extra, ...] = ()


class Grouping(StrEnum):
    """What entries are kept per."""

    KEY = "key"
    GLOBAL_ROW = "global row"
    WINDOW_AND_KEY = "window and key"  # an open window
    WINDOW = "window"  # an open window, no other key
    SESSION_AND_KEY = "session and key"
    GLOBAL_SESSION = "global session"
    JOIN_KEY = "join key"
    NO_JOIN_KEY = "no join key"
    PARTITION = "partition"
    GLOBAL_PARTITION = "global partition"
    GLOBAL_RANKING = "global ranking"
    WINDOW_AND_PARTITION = "window and partition"
    KEY_AND_WINDOW = "key and window"  # window deduplication
    TOTAL = "total"
    TIME_ORDER = "time order"


class ReleaseKind(StrEnum):
    WINDOW_END = "window end"  # after: the window size; + the watermark delay
    SESSION_END = "session end"  # after: the gap; + the watermark delay
    INTERVAL_BOUND = "interval bound"  # after: how far the other side reaches; + the delay
    OTHER_SIDE_WATERMARK = "other side's watermark"  # column: the row's column the condition bounds
    WATERMARK = "watermark"  # a row leaves once the watermark passes its time; after: the delay
    PROCESSING_TIME = "processing time"
    WITHIN = "within"  # MATCH_RECOGNIZE WITHIN; + the delay
    FRAME_RANGE = "frame range"  # OVER RANGE on event time: after: the range; + the delay
    TTL = "state TTL"  # after: the TTL
    FINITE_DOMAIN = "finite domain"  # never released, but the keys are a known finite set
    SINGLE = "single"  # one global group, session, ranking or partition
    LIMIT = "limit"  # ORDER BY ... LIMIT: count rows in total
    NEVER = "never"


class Never(StrEnum):
    """Why nothing releases a part (the reason an unbounded verdict gives)."""

    NO_TTL = "no TTL, no window"
    TIME_BUCKET = "the key includes a time bucket"
    NO_WATERMARK_WINDOW = "without a watermark windows never close"
    NO_WATERMARK_ROWS = "no watermark, so rows never expire"
    REGULAR_JOIN = "a regular join keeps rows forever"
    VERSIONED_NO_WATERMARK = "the versioned table has no watermark"
    NO_WATERMARK_VERSIONS = "without a watermark no version is ever dropped"
    LATEST_VERSION = "a key's latest version is kept"
    DISTINCT_SETS = "the sets of seen values are never released"
    NO_WATERMARK_SORT = "without a watermark no row is ever ready"
    NOT_TIME_ATTRIBUTE = "sorted by a column that is not a time attribute"
    RANKING_INPUT = "a ranking over changes keeps every row its input holds"
    OVER_INPUT = "an OVER aggregation over changes keeps every row its input holds"


class TtlClock(StrEnum):
    """What the TTL counts from."""

    LAST_UPDATE = "a key's last update"
    STORED = "the row was stored"
    LAST_ROW_EITHER_SIDE = "the key's last row on either side"


@dataclass(frozen=True)
class Release:
    kind: ReleaseKind
    after_ms: int | None = None  # the window, gap, interval reach, TTL or WITHIN
    delay_ms: int | None = None  # the watermark delay on top of it
    column: str | None = None  # OTHER_SIDE_WATERMARK: the row's column
    never: Never | None = None  # NEVER (and FINITE_DOMAIN / TTL over an otherwise unbounded part): why
    span_ms: int | None = None  # INTERVAL_BOUND: the interval's width
    ttl_clock: TtlClock | None = None  # TTL: what it counts from
    keyed: bool = True  # SESSION_END: per key (False: one global session)
    count: int | None = None  # LIMIT / SINGLE ranking: how many rows


@dataclass(frozen=True)
class StatePart:
    """One thing an operator keeps: the rows of one join side, the accumulators of a group, ..."""

    role: PartRole
    stored: Stored
    grouping: Grouping
    release: Release
    retention_ms: int | None  # how long an entry lives after its time; None: until released otherwise / forever
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
    # the window's rows arrive only as it closes (they come from its event-time aggregation, which
    # emits each window at its end): released in the same micro-batch, nothing kept between batches
    arrives_closed: bool = False

    @property
    def label(self) -> str:
        return self.role.value

    @property
    def bounded(self) -> bool:
        return self.growth == Growth.NONE

    @property
    def by_ttl(self) -> bool:
        """Released only by a state TTL."""
        return self.release.kind == ReleaseKind.TTL

    @property
    def released_by(self) -> str | None:
        """The row's column whose passing by the other side's watermark drops the row."""
        return self.release.column if self.release.kind == ReleaseKind.OTHER_SIDE_WATERMARK else None

    # prose, rendered from the facts (planner.analysis.state.text)
    @property
    def stores(self) -> str:
        from planner.analysis.state.text import stored_text

        return stored_text(self)

    @property
    def per(self) -> str:
        from planner.analysis.state.text import per_text

        return per_text(self)

    @property
    def bound(self) -> str:
        from planner.analysis.state.text import bound_text

        return bound_text(self)

    @property
    def released(self) -> str:
        from planner.analysis.state.text import released_text

        return released_text(self)


@dataclass(frozen=True)
class StateInfo:
    node: Node = field(repr=False)
    operator: OperatorKind
    parts: tuple[StatePart, ...]
    ttl_ms: int | None = None  # a TTL in force (setting or hint)
    watermark_delay_ms: int | None = None

    @property
    def node_id(self) -> int:
        return self.node.node_id

    @property
    def verdict(self) -> Verdict:
        return Verdict.BOUNDED if all(p.bounded for p in self.parts) else Verdict.UNBOUNDED

    @property
    def reason(self) -> str:
        from planner.analysis.state.text import reason_text

        return reason_text(self)

    def __str__(self) -> str:
        return f"{self.operator}: {self.verdict.value} — {self.reason}"
