"""What sqlengine can run on Spark Structured Streaming today, decided from the plan alone (no
JVM), so that lint and the shell say it before a job starts. The translator
(``sqlengine.translate``) refuses exactly what this module reports."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from sqlglot import exp

from planner.logical.fields import TimeKind
from planner.logical.operators import (
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
    Sink,
    Sort,
    TemporalJoin,
    TopN,
    Union,
    WindowAggregate,
    WindowJoin,
    WindowKind,
    is_stateful,
)
from planner.properties import NodeProps

LATER = "planned for a later release (changelog operators on transformWithState)"


@dataclass(frozen=True)
class Unsupported:
    node: Node
    reason: str
    at: exp.Expr | None = None  # the exact cause inside the node (a function call), when there is one


def _upsert_below(node: Node, props: dict[int, NodeProps]) -> bool:
    return any(not props[id(c)].changelog.insert_only for c in node.inputs)


def _distinct_problem(node) -> str | None:  # type: ignore[no-untyped-def]
    """DISTINCT aggregates run as sets of values (COUNT, SUM, AVG; MIN/MAX ignore DISTINCT)."""
    for a in node.aggs:
        if a.distinct and a.func not in ("COUNT", "SUM", "AVG", "MIN", "MAX"):
            return f"{a.func}(DISTINCT ...) cannot run on Spark yet"
    return None


def _unorderable(node: Node, order) -> str | None:  # type: ignore[no-untyped-def]
    """The best row per key is found with max_by: a key sorted against its natural direction
    must be a number, a date or a time (which can be negated)."""
    from planner.logical import typing as T
    from sqlglot import exp

    for i, (name, desc) in enumerate(order):
        if desc:
            continue
        f = node.inputs[0].field(name)
        if f is None or not T.is_type(f.type, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL, *T.TIMESTAMPS, exp.DType.DATE):
            return f"ordering by `{name}` ascending cannot run on Spark yet (only numbers, dates and times can be reversed)"
    return None


def unsupported(plan: Node, props: dict[int, NodeProps], bounded: callable | None = None) -> list[Unsupported]:  # type: ignore[valid-type]
    """Every operator of ``plan`` that cannot run on Spark Structured Streaming, with why.

    ``bounded(node)`` tells whether all sources under a node are finite (a lookup join needs a
    finite right side, read once as a static table)."""
    out: list[Unsupported] = []
    seen: set[int] = set()
    for node in plan.walk():
        if id(node) in seen:
            continue
        seen.add(id(node))
        call = _user_function(node)
        if call is not None:
            out.append(Unsupported(node, f"user-defined function `{call.name}` cannot run on Spark yet (it is declared as "
                                         f"'{call.meta['user_function']}', a JVM class sqlengine does not load)", call))
            continue
        reason = _reason(node, props, bounded)
        if reason:
            out.append(Unsupported(node, reason))
    return out


def _expressions(value):  # type: ignore[no-untyped-def]
    """The bound expressions a node holds (projections, conditions, aggregate arguments, ...),
    not its inputs nor the syntax it came from."""
    if isinstance(value, exp.Expr):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _expressions(v)
    elif dataclasses.is_dataclass(value) and not isinstance(value, (Node, type)):
        for f in dataclasses.fields(value):
            if f.name != "origin":
                yield from _expressions(getattr(value, f.name))


def _user_function(node: Node) -> exp.Anonymous | None:
    for f in dataclasses.fields(node):
        if f.name == "origin":
            continue
        for e in _expressions(getattr(node, f.name)):
            for call in e.find_all(exp.Anonymous):
                if "user_function" in call.meta:
                    return call
    return None


def _reason(node: Node, props: dict[int, NodeProps], bounded) -> str | None:  # type: ignore[no-untyped-def]  # noqa: C901
    updating_input = _upsert_below(node, props)
    if isinstance(node, Sink) and node.overwrite:
        return "INSERT OVERWRITE runs only in batch mode (SET 'execution.runtime-mode' = 'batch'), as in Flink"
    if isinstance(node, OverAggregate):
        return "Spark Structured Streaming has no OVER windows on streams; " + LATER
    if isinstance(node, MatchRecognize):
        return "MATCH_RECOGNIZE has no counterpart in Spark Structured Streaming"
    if isinstance(node, TopN) and node.window is None:
        if node.n != 1 or node.rank_func != "ROW_NUMBER":
            return "Top-N produces retractions, which Spark Structured Streaming cannot represent; " + LATER
        bad = _unorderable(node, node.order)
        if bad:
            return bad
    if isinstance(node, TopN) and node.window is not None and node.rank_func != "ROW_NUMBER":
        return f"{node.rank_func} in a window Top-N cannot run on Spark yet; use ROW_NUMBER()"
    if isinstance(node, Deduplicate) and node.window is None and node.keep_last:
        bad = _unorderable(node, ((node.order_field, True),))
        if bad:
            return bad
    if isinstance(node, Sort):
        if node.limit is not None:
            return "ORDER BY ... LIMIT on a stream produces retractions; " + LATER
        first = node.input.field(node.order[0][0]) if node.order else None
        if first is None or first.time is None or node.order[0][1]:
            return "a stream can only be sorted by a time attribute, ascending"
        return "ORDER BY on a stream is not supported by Spark Structured Streaming"
    if isinstance(node, Correlate):
        if node.call.key != "unnest":
            return "table functions (LATERAL TABLE) need a user-defined function, which sqlengine cannot run yet"
        return None
    if isinstance(node, WindowAggregate) or (isinstance(node, (TopN, Deduplicate)) and node.window is not None):
        window = node.window
        source = node.input.field(window.time_field) if window is not None else None
        if source is not None and source.time == TimeKind.PROCTIME:
            return "processing-time windows cannot run on Spark yet: Spark closes windows only on an event-time watermark"
    if isinstance(node, WindowAggregate):
        if updating_input:
            return "a window aggregation over an updating input is not supported by Spark Structured Streaming"
        return _distinct_problem(node)
    if isinstance(node, GroupAggregate):
        if updating_input:
            return "an aggregation over an updating input needs retractions; " + LATER
        return _distinct_problem(node)
    if isinstance(node, TemporalJoin):
        return "event-time temporal joins (FOR SYSTEM_TIME AS OF a rowtime) have no counterpart in Spark; " + LATER
    if isinstance(node, LookupJoin):
        if bounded is not None and not bounded(node.right):
            return "a lookup join needs a finite right-hand table (read once, as a static table)"
        return None
    if isinstance(node, WindowJoin):
        if node.join_kind not in (JoinKind.INNER,):
            return "only inner window joins run on Spark Structured Streaming"
        return None
    if isinstance(node, IntervalJoin):
        if updating_input:
            return "an interval join over an updating input is not supported"
        if node.join_kind in (JoinKind.SEMI, JoinKind.ANTI, JoinKind.FULL):
            return f"{node.join_kind.value} interval joins are not supported by Spark Structured Streaming"
        left_t = node.field(node.left_time)
        if left_t is not None and left_t.time == TimeKind.PROCTIME:
            return "processing-time interval joins are not supported by Spark Structured Streaming"
        return None
    if isinstance(node, Join):
        if updating_input:
            return "a join over an updating input needs retractions; " + LATER
        if node.join_kind in (JoinKind.LEFT, JoinKind.RIGHT, JoinKind.FULL):
            return (
                "an outer join without a time bound produces retractions; Spark can run outer joins only as "
                "interval joins (bound both sides' time attributes)"
            )
        if node.join_kind == JoinKind.ANTI:
            return "NOT IN / anti joins between streams are not supported by Spark Structured Streaming"
        return None
    if isinstance(node, Union) and updating_input:
        return "UNION of updating inputs needs retractions; " + LATER
    return None


def ttl_problem(state) -> Unsupported | None:  # type: ignore[no-untyped-def]
    """A state TTL (``table.exec.state.ttl`` or ``STATE_TTL``) that is the only thing bounding an
    operator's state: Spark would keep that state forever and never forget a key, so neither the
    results nor the state would be what the plan says."""
    for info in state:
        if any(p.by_ttl for p in info.parts):
            return Unsupported(
                info.node,
                "a state TTL is not enforced on Spark yet (the state would be kept forever and idle keys never "
                "forgotten, so the results would differ); planned for a later release (state TTL on transformWithState)",
            )
    return None


def stateful_chain_problem(plan: Node, props: dict[int, NodeProps]) -> Unsupported | None:
    """Spark runs several stateful operators in one query only in append mode: an operator that
    emits updates (a group aggregation) must be the last stateful one."""
    for node in plan.walk():
        if not is_stateful(node):
            continue
        for child in node.inputs:
            for below in child.walk():
                if is_stateful(below) and not props[id(below)].changelog.insert_only:
                    return Unsupported(
                        node,
                        f"{node.kind} after {below.kind}: Spark runs an updating operator ({below.kind}) only as "
                        "the last stateful step of a query",
                    )
        if props[id(node)].changelog.insert_only:
            continue
        for child in node.inputs:
            for below in child.walk():
                if is_stateful(below) and _emits_old_rows(below):
                    return Unsupported(
                        node,
                        f"{node.kind} over {below.kind}: {below.kind} emits rows behind the watermark, "
                        f"and Spark refuses them as input of an updating operator ({node.kind}) "
                        "(its global-watermark correctness check)",
                    )
    return None


def _emits_old_rows(node: Node) -> bool:
    """Spark's global-watermark check: below an update-mode operator, an aggregation (windows,
    window Top-N and deduplication run as aggregations) or an outer join may emit rows behind the
    watermark, which Spark refuses. Inner joins and keep-first deduplication emit rows as they come."""
    if isinstance(node, (WindowAggregate, GroupAggregate)):
        return True
    if isinstance(node, (Deduplicate, TopN)):
        return node.window is not None
    if isinstance(node, Join):
        return node.join_kind != JoinKind.INNER
    return False
