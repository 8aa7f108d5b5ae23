"""How each stateful operator runs on Spark: as Spark's own operator (native), or as one of our
changelog operators (rows carry their kind: +I, -U, +U, -D), in Python on ``transformWithState``
or, where it has a Java implementation (``jvm_operator``), on ``flatMapGroupsWithState``.

Decided once per plan, from the plan alone, and shown by EXPLAIN, lint (SE302), ``SHOW JOBS`` and
``DESCRIBE JOB``; the checker and the translator follow it. Native wherever Spark's operator gives
Flink's result exactly; a changelog operator wherever it cannot:

- the operator consumes changes (its input updates or retracts rows, or comes from a changelog
  operator);
- Spark has no operator for it (Top-N with N > 1 or RANK, ORDER BY ... LIMIT, outer and anti
  joins without a time bound, a Top-1 ordered by a column Spark cannot reverse);
- it emits changes and another stateful operator reads them (Spark runs an updating operator
  only as a query's last stateful step), or its result retracts rows (Spark's output modes are
  append and update by key), or what reaches the result does not keep its key, or a filter on
  its result reads more than its key (an update may leave the filter: Flink deletes the row);
- a state TTL is in force for it (Spark's operators cannot forget state);
- it emits updates over an input that may hold rows behind the watermark (Spark's global
  watermark check refuses an updating operator there).

Batch mode (``execution.runtime-mode = batch``) runs everything on Spark's batch engine: no
decision is made there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from sqlglot import exp

from planner.analysis.arrival import arrival_kept
from planner.analysis.jvm_operators import jvm_operator
from planner.analysis.properties import NodeProps
from planner.analysis.versioned import history
from planner.logical import typing as T
from planner.logical.changelog import Mode
from planner.logical.fields import TimeKind
from planner.logical.joins import IntervalJoin, Join, JoinKind, LookupJoin, TemporalJoin
from planner.logical.operators import (
    Calc,
    ChangelogNormalize,
    Correlate,
    Deduplicate,
    GroupAggregate,
    MatchRecognize,
    Node,
    OverAggregate,
    Sink,
    Sort,
    TopN,
    Union,
    WindowAggregate,
    WindowTVF,
    window_on_proctime,
    window_time_field,
)
from planner.logical.specs import AggFunc, WindowKind
from planner.logical.visit import distinct_nodes
from planner.switches import switch_on
from planner.time_zone import fixed_offset_ms

PYTHON_NAME, JVM_NAME = "changelog operator", "changelog operator on the JVM"


class Execution(StrEnum):
    NATIVE = "native"  # Spark's own operator
    CHANGELOG = "changelog"  # ours, on transformWithState (Python) or flatMapGroupsWithState (Java)


class Why(StrEnum):
    """Why an operator runs as a changelog operator."""

    CONSUMES_CHANGES = "its input updates or retracts rows"
    AFTER_CHANGELOG = "its input comes from a changelog operator"
    NO_NATIVE = "Spark has no operator for it"
    FEEDS_STATEFUL = "another stateful operator reads its updates"
    RETRACTS = "its result retracts rows"
    FILTERED = "a filter on its result turns an update that leaves the filter into a delete"
    KEY_NOT_KEPT = "the result does not keep its key, so its updates become retractions"
    TTL = "a state TTL is in force"
    LATE_INPUT = "its input may hold rows behind the watermark"
    WALL_CLOCK_SESSIONS = "its sessions join on the wall clock of a zone with daylight saving time, which Spark's session windows cannot follow"


class RankStrategy(StrEnum):
    """How a Top-N (or a deduplication over changes) keeps its rows, chosen from its input's
    changelog as Flink chooses (EXPLAIN shows Flink's names)."""

    APPEND_FAST = "AppendFastStrategy"  # insert-only input: the top N rows per partition
    UPDATE_FAST = "UpdateFastStrategy"  # upserts whose order only moves up: the top N rows
    RETRACT = "RetractStrategy"  # anything else: every row of each partition


@dataclass(frozen=True)
class Physical:
    execution: Execution
    why: Why | None = None  # for CHANGELOG: the first reason found
    strategy: RankStrategy | None = None  # for a ranking run as a changelog operator
    # for a join run as a changelog operator: which sides keep, with each row, how many rows of
    # the other side it matches (the state analysis and the operator both read this)
    counted: tuple[bool, bool] = (False, False)
    # for a keep-last deduplication that is a temporal join's versioned view: it emits each row it
    # keeps as it comes, not one change per key and micro-batch, for each is a version there
    every_change: bool = False
    # for an OVER aggregation: it runs over changes (``OverAggregate.on_changes``), not on time
    over_changes: bool = False
    # the operator runs on the JVM (sqlengine/jvm/*.java, on flatMapGroupsWithState), not in
    # Python on transformWithState: ``jvm_operator`` says which do
    jvm: bool = False
    # a JVM operator under a state TTL in an unbounded job: it releases a key's expired rows on
    # Spark's processing-time timeouts, so its job runs batches without input too (a bounded job
    # has none, and would never end: there a key's expired rows go when it is next touched)
    timeouts: bool = False
    # a native Top-1 or deduplication keeping the first of tied rows (``best_row``, not
    # ``later_wins``) over rows straight from a scan (``arrival_kept``: after a shuffle their order
    # is the shuffle's) orders one micro-batch's ties by each row's arrival number
    # (sqlengine/jvm/Arrival.java), as Flink keeps the first to arrive; without the JVM (the
    # setting below 'false': no javac, Spark Connect) Spark's max_by keeps the last a partition reads
    ties_by_arrival: bool = False

    @property
    def changelog(self) -> bool:
        return self.execution == Execution.CHANGELOG

    @property
    def name(self) -> str:
        """What runs it: "native", or which changelog operator (the resume fingerprint records it)."""
        if self.execution == Execution.NATIVE:
            return "native"
        return JVM_NAME if self.jvm else PYTHON_NAME

    def __str__(self) -> str:
        if self.execution == Execution.NATIVE:
            return "native"
        strategy = f", {self.strategy}" if self.strategy else ", over changes" if self.over_changes else ""
        timeouts = "; idle keys released on Spark's processing-time timeouts" if self.timeouts else ""
        return f"{self.name} ({self.why}{strategy}{timeouts})" if self.why else self.name


NATIVE = Physical(Execution.NATIVE)
# a changelog operator's keys are hashed into this many buckets, each stored as one value (the
# default of 'sqlengine.changelog.buckets'; sqlengine.translate.changelog uses it)
DEFAULT_BUCKETS = 64
BUCKETS_SETTING = "sqlengine.changelog.buckets"
# whether the operators that have a JVM implementation run on it ('true', the default; the engine
# sets 'false' where it cannot build or load them: no javac, Spark Connect)
JVM_SETTING = "sqlengine.changelog.jvm"


def jvm_setting(settings: dict[str, str]) -> bool:
    return switch_on(settings, JVM_SETTING)


def changelog_buckets(settings: dict[str, str]) -> int:
    """How many buckets a changelog operator's keys are hashed into ('sqlengine.changelog.buckets')."""
    raw = settings.get(BUCKETS_SETTING)
    try:
        return max(1, int(raw)) if raw else DEFAULT_BUCKETS
    except ValueError:
        return DEFAULT_BUCKETS


# the operators there is a changelog implementation of (exact classes; windowed rankings run
# natively, as they are insert-only and Flink refuses them over changes)
CHANGELOG_OPERATORS: frozenset[type[Node]] = frozenset(
    {GroupAggregate, TopN, Deduplicate, Join, Sort, ChangelogNormalize, OverAggregate, TemporalJoin, WindowAggregate,
     MatchRecognize, IntervalJoin}
)
# stateless operators rows pass through with their kind
PASS_THROUGH: frozenset[type[Node]] = frozenset({Calc, Correlate, Union, Sink, LookupJoin, WindowTVF})


def has_changelog_implementation(node: Node, time_zone: str) -> bool:
    if type(node) not in CHANGELOG_OPERATORS:
        return False
    if isinstance(node, (TopN, Deduplicate)):  # windowed: on processing time (event time runs natively)
        return node.window is None or window_on_proctime(node, node.window)
    if isinstance(node, Sort):
        return node.limit is not None and bool(node.order)
    if isinstance(node, IntervalJoin):  # on processing time (on event time Spark's own runs it; after a match: decide)
        return node.on_proctime
    if isinstance(node, WindowAggregate):
        # on processing time (Spark's own windows close on a watermark), calling a Python
        # aggregate function (event-time sessions merge: the operator merges their accumulators),
        # or sessions on a zone's wall clock
        return window_operator(node, time_zone, streaming=True)
    return True


def window_operator(node: Node, time_zone: str, *, streaming: bool) -> bool:
    """A window aggregation sqlengine's window operator runs (it assigns the windows itself: no
    Spark window struct comes out of it): one calling a Python aggregate function or with
    sessions on a zone's wall clock in both modes, one on processing time in streaming mode (in
    batch mode PROCTIME() is the query's one instant, which Spark's windows take as any time)."""
    return isinstance(node, WindowAggregate) and (
        (streaming and node.on_proctime) or user_aggregate(node) or wall_clock_sessions(node, time_zone))


def wall_clock_sessions(node: Node, time_zone: str) -> bool:
    """Event-time SESSION windows on a TIMESTAMP_LTZ in a zone whose offset changes: Flink joins
    rows into sessions on the zone's wall clock (the autumn's repeated hour brings rows an hour
    apart together), which Spark's session windows, on instants, cannot."""
    if not isinstance(node, WindowAggregate) or node.window.kind != WindowKind.SESSION or node.on_proctime:
        return False
    f = window_time_field(node, node.window)
    return f is not None and T.is_type(f.type, exp.DType.TIMESTAMPLTZ) and fixed_offset_ms(time_zone) is None


def best_row(node: Node) -> bool:
    """A Top-1 or deduplication that Spark's own aggregation runs as each key's best row so far
    (max_by: sqlengine/translate/aggregates.py): not per window, and not a deduplication keeping
    the first row on processing time (Spark's dropDuplicates, which keeps the first key it sees)."""
    if isinstance(node, Deduplicate):
        return node.window is None and (node.keep_last or not node.on_proctime)
    return isinstance(node, TopN) and node.window is None and node.top1


def later_wins(node: Node) -> bool:
    """Of rows tied on a best-row operator's order, whether the later one stays: a deduplication
    keeping the last row, or an order on processing time descending (on Flink a later row has the
    later processing time)."""
    if isinstance(node, TopN):
        name, desc = node.order[0]
    elif isinstance(node, Deduplicate):
        name, desc = node.order_field, node.keep_last
    else:
        return False
    first = node.input.field(name)
    if first is not None and first.time == TimeKind.PROCTIME:
        return desc
    return isinstance(node, Deduplicate) and node.keep_last


def user_aggregate(node: Node) -> bool:
    """The node calls a Python aggregate function: Spark's own aggregations cannot call one."""
    return isinstance(node, (GroupAggregate, WindowAggregate, OverAggregate)) and any(a.udf is not None for a in node.aggs)


def _windowed(node: Node) -> bool:
    return isinstance(node, (Deduplicate, TopN)) and node.window is not None


def _emits_late_rows(node: Node) -> bool:
    """Whether an operator may emit rows behind the watermark (windows close after it passes;
    an outer join pads rows once a bound passes): Spark's global watermark check refuses an
    updating operator over them."""
    if isinstance(node, (WindowAggregate, GroupAggregate, TemporalJoin)) or _windowed(node):
        return True  # (a temporal join emits a row once the watermark has passed it)
    return isinstance(node, Join) and node.join_kind != JoinKind.INNER


def reversible(node: Node, order: Sequence[tuple[str, bool]]) -> bool:
    """Whether Spark's max_by can find the first row by ``order``: every key sorted against its
    natural direction can be negated (a number, a date or a time)."""
    for name, desc in order:
        if desc:
            continue
        f = node.inputs[0].field(name)
        if f is None or not T.is_type(f.type, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL, *T.TIMESTAMPS, exp.DType.DATE):
            return False
    return True


def _no_native(node: Node) -> bool:
    if user_aggregate(node):
        return True
    if isinstance(node, IntervalJoin):
        return node.on_proctime  # Spark bounds a stream-stream join by watermarks only
    if isinstance(node, (TopN, Deduplicate)) and node.window is not None:
        return window_on_proctime(node, node.window)  # Spark ranks a window when a watermark closes it
    if isinstance(node, TopN) and node.window is None:
        return not node.top1 or not reversible(node, node.order)
    if isinstance(node, Deduplicate) and node.window is None:
        return node.keep_last and not reversible(node, ((node.order_field, True),))
    if isinstance(node, Sort):
        return node.limit is not None and bool(node.order)
    if isinstance(node, OverAggregate):
        return True  # Spark has no OVER window on a stream
    if isinstance(node, MatchRecognize):
        return True  # nor row pattern matching
    if isinstance(node, WindowAggregate):
        return node.on_proctime  # Spark closes a window only when a watermark passes it
    if isinstance(node, TemporalJoin):
        return True  # nor a join with the version of a row valid at a time
    if type(node) is Join:
        # Spark joins two streams without a time bound only as an inner join
        return node.join_kind.outer or node.join_kind in (JoinKind.SEMI, JoinKind.ANTI)
    return False


def _ttl(node: Node, ttl_ms: int | None) -> bool:
    """A TTL applies: a STATE_TTL hint, or the session's TTL (Flink applies it to the keyed
    operators without a window: group aggregation, deduplication, Top-N, regular joins)."""
    keyed = isinstance(node, (GroupAggregate, Deduplicate, TopN, ChangelogNormalize)) and not _windowed(node)
    if not keyed and type(node) is not Join:
        return False
    return any(node.state_ttls(ttl_ms))


def _monotonic(node: Node, field_name: str, props: dict[int, NodeProps]) -> str | None:
    """Whether a field of ``node``'s output only ever moves one way ("up" or "down") as its
    upsert key is updated: a COUNT or MAX (up) or MIN (down) of a group aggregation over an
    insert-only input, seen through projections that keep it. As Flink's planner, SUM is not
    known to be monotonic (its values may be negative)."""
    while isinstance(node, Calc):
        source = next((e for n, e in node.projections if n == field_name), None)
        if not isinstance(source, exp.Column):
            return None
        field_name, node = source.name, node.input
    if not isinstance(node, GroupAggregate) or not props[node.input.node_id].changelog.insert_only:
        return None
    call = next((a for a in node.aggs if a.name == field_name), None)
    if call is None or call.filter is not None:
        return None
    if call.func in (AggFunc.COUNT, AggFunc.MAX):
        return "up"
    if call.func == AggFunc.MIN:
        return "down"
    return None


def rank_strategy(node: Node, props: dict[int, NodeProps]) -> RankStrategy:
    """How a changelog ranking keeps its rows, from its input's changelog (Flink's rules): an
    insert-only input keeps the top N; an upsert input whose key holds the partition key and
    whose order only improves keeps the top N too; anything else keeps every row."""
    child = node.inputs[0]
    changelog = props[child.node_id].changelog
    if changelog.insert_only:
        return RankStrategy.APPEND_FAST
    if not isinstance(node, TopN):
        return RankStrategy.RETRACT
    upsert_by_partition = (
        changelog.mode == Mode.UPSERT
        and bool(changelog.key)
        and set(node.partition_keys) <= set(changelog.key)
        and len(node.order) == 1
    )
    if upsert_by_partition:
        name, desc = node.order[0]
        if _monotonic(child, name, props) == ("up" if desc else "down") and _never_deletes(child, props):
            return RankStrategy.UPDATE_FAST
    return RankStrategy.RETRACT


def _never_deletes(node: Node, props: dict[int, NodeProps]) -> bool:
    """An upsert input that never deletes a key: a group aggregation (with keys) over an
    insert-only input, through projections."""
    while isinstance(node, Calc):
        if node.condition is not None:
            return False  # a filter turns an update that leaves it into a delete
        node = node.input
    return isinstance(node, GroupAggregate) and bool(node.keys) and props[node.input.node_id].changelog.insert_only


def decide(plans: Sequence[Node], props: dict[int, NodeProps], ttl_ms: int | None, streaming: bool = True,
           time_zone: str = "UTC", jvm: bool = True, *, bounded: bool = False) -> dict[int, Physical]:
    """How every stateful operator of the plans runs, by node id (in batch mode: none); ``jvm``:
    those with a JVM implementation run on it; ``bounded``: every source of the job is finite
    (``bounded_job``): it ends, and cannot run Spark's processing-time timeouts."""
    if not streaming:
        return {}
    out: dict[int, Physical] = {}
    nodes = distinct_nodes(plans)
    parents: dict[int, list[Node]] = {}
    for n in nodes:
        for child in n.inputs:
            parents.setdefault(child.node_id, []).append(n)

    def stateful_above(node: Node) -> bool:
        """Another stateful operator reads this one's output (through stateless steps)."""
        todo = list(parents.get(node.node_id, []))
        while todo:
            above = todo.pop()
            if above.stateful:
                return True
            todo.extend(parents.get(above.node_id, []))
        return False

    def result_keeps_key(node: Node) -> bool:
        """The result its updates reach is still an upsert on a key."""
        todo = [node]
        while todo:
            n = todo.pop()
            if props[n.node_id].changelog.mode != Mode.UPSERT:
                return False
            todo.extend(parents.get(n.node_id, []))
        return True

    def filtered_above(node: Node) -> bool:
        """A filter on the result (HAVING, EXCEPT's condition) that reads more than its key: an
        update may leave it, and Flink then deletes the row Spark's update mode would keep."""
        todo = list(parents.get(node.node_id, []))
        while todo:
            above = todo.pop()
            if not isinstance(above, Calc):
                continue
            key = set(props[above.input.node_id].changelog.key)
            if above.condition is not None and any(c.name not in key for c in above.condition.find_all(exp.Column)):
                return True
            todo.extend(parents.get(above.node_id, []))
        return False

    def late_below(node: Node) -> bool:
        return any(_emits_late_rows(n) for child in node.inputs for n in child.walk() if n.stateful)

    def after_changelog(node: Node) -> bool:
        return any(carries_kinds(c, out) for c in node.inputs)

    # the versioned views of temporal joins: their every version counts
    versioned_views = {h.node_id for n in nodes if isinstance(n, TemporalJoin) and (h := history(n.right)) is not None}

    # bottom-up: what an operator consumes depends on how the operators below it run
    for node in reversed(nodes):
        if not node.stateful or isinstance(node, LookupJoin):
            continue
        emits = not props[node.node_id].changelog.insert_only
        why: Why | None = None
        if any(not props[c.node_id].changelog.insert_only for c in node.inputs):
            why = Why.CONSUMES_CHANGES
        elif after_changelog(node):
            why = Why.AFTER_CHANGELOG
        elif _no_native(node):
            why = Why.NO_NATIVE
        elif wall_clock_sessions(node, time_zone):
            why = Why.WALL_CLOCK_SESSIONS
        elif emits and stateful_above(node):
            why = Why.FEEDS_STATEFUL
        elif emits and props[node.node_id].changelog.mode == Mode.RETRACT:
            why = Why.RETRACTS
        elif emits and filtered_above(node):
            why = Why.FILTERED
        elif emits and not result_keeps_key(node):
            why = Why.KEY_NOT_KEPT
        elif _ttl(node, ttl_ms):
            why = Why.TTL
        elif emits and late_below(node):
            why = Why.LATE_INPUT
        # after a changelog operator, an event-time window aggregation, window ranking or interval
        # join runs on sqlengine's operator when the operator emits each row as the watermark
        # passes it (a MATCH_RECOGNIZE, an OVER on event time: after_release); after any other
        # its rows have no watermark: the checker refuses it
        windowed = why == Why.AFTER_CHANGELOG and (
            (isinstance(node, (WindowAggregate, IntervalJoin)) and not node.on_proctime)
            or (isinstance(node, (TopN, Deduplicate)) and node.window is not None and not window_on_proctime(node, node.window)))
        if windowed and not after_release(node, out):
            why = None
        if why is None or not (has_changelog_implementation(node, time_zone) or windowed):
            # (the checker refuses what cannot run either way)
            arrival = jvm and best_row(node) and not later_wins(node) and arrival_kept(node)
            out[node.node_id] = Physical(Execution.NATIVE, ties_by_arrival=True) if arrival else NATIVE
            continue
        ranking = isinstance(node, (TopN, Sort)) or (isinstance(node, Deduplicate) and why in (Why.CONSUMES_CHANGES, Why.AFTER_CHANGELOG))
        strategy = rank_strategy(node, props) if ranking else None
        # a temporal join emits each left row once, when the watermark passes it: it counts nothing
        counted = counted_sides(node.join_kind) if isinstance(node, Join) and not isinstance(node, TemporalJoin) else (False, False)
        over_changes = isinstance(node, OverAggregate) and node.on_changes(all(props[c.node_id].changelog.insert_only for c in node.inputs))
        ttl = _ttl(node, ttl_ms)
        on_jvm = jvm and jvm_operator(node, strategy, ttl, time_zone, bounded=bounded)
        out[node.node_id] = Physical(Execution.CHANGELOG, why, strategy, counted, node.node_id in versioned_views, over_changes, on_jvm,
                                     timeouts=on_jvm and ttl and not bounded)
    return out


def counted_sides(kind: JoinKind) -> tuple[bool, bool]:
    """The sides of a changelog join that count each row's matches: a side padded with NULLs
    until its first match (outer joins), and the left of a semi or anti join (emitted on its
    first match, taken back on its last; or the other way round)."""
    return (
        kind in (JoinKind.LEFT, JoinKind.FULL, JoinKind.SEMI, JoinKind.ANTI),
        kind in (JoinKind.RIGHT, JoinKind.FULL),
    )


def carries_kinds(node: Node, physical: dict[int, Physical]) -> bool:
    """Whether the rows out of ``node`` carry their kind: a changelog operator emits them, and
    stateless operators pass them on (a lookup join: its probe side's)."""
    p = physical.get(node.node_id)
    if p is not None and p.changelog:
        return True
    if isinstance(node, LookupJoin):
        return carries_kinds(node.left, physical)
    if type(node) in PASS_THROUGH:
        return any(carries_kinds(c, physical) for c in node.inputs)
    return False


def after_release(node: Node, physical: dict[int, Physical]) -> bool:
    """The changelog operators whose rows reach ``node`` emit each row once the watermark passes
    its time, and their time attribute leaves transformWithState with Spark's watermark mark, so
    an event-time operator can follow, taking every row they emit: a MATCH_RECOGNIZE (its
    MATCH_ROWTIME(); sqlengine.translate.match_recognize) and an OVER on event time over appends
    whose input has no other time attribute (its order's time; translate.changelog_aggregates)."""
    feeders = [n for c in node.inputs for n in changelog_feeders(c, physical)]
    return bool(feeders) and all(_releases_on_watermark(n, physical) for n in feeders)


def _releases_on_watermark(node: Node, physical: dict[int, Physical]) -> bool:
    if isinstance(node, MatchRecognize):
        return True
    if isinstance(node, OverAggregate):
        p = physical.get(node.node_id)
        rowtimes = [f.name for f in node.input.fields if f.time == TimeKind.ROWTIME]
        return node.waits_on_watermark() and p is not None and not p.over_changes and rowtimes == [node.order_field]
    return False


def changelog_feeders(node: Node, physical: dict[int, Physical]) -> list[Node]:
    """The changelog operators whose rows reach the output of ``node`` through stateless steps."""
    p = physical.get(node.node_id)
    if p is not None and p.changelog:
        return [node]
    if isinstance(node, LookupJoin):
        return changelog_feeders(node.left, physical)
    if type(node) in PASS_THROUGH:
        return [n for c in node.inputs for n in changelog_feeders(c, physical)]
    return []


def changelog_nodes(plans: Sequence[Node], physical: dict[int, Physical]) -> list[Node]:
    return [n for n in distinct_nodes(plans) if (p := physical.get(n.node_id)) is not None and p.changelog]
