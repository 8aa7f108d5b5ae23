"""What Spark can run, operator by operator: each check looks at one node (and its inputs'
properties) and returns the problems it has, with their codes. Streaming and batch mode differ:
Spark's batch engine runs OVER, ORDER BY and any Top-N with its window functions."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlglot import exp

from catalog.connectors import spec_of
from planner.analysis.check.codes import Code
from planner.analysis.check.problem import Problem, problem
from planner.analysis.jvm_operators import calls_user_function
from planner.analysis.lineage import Lineage
from planner.analysis.physical import Physical, Why, after_release, carries_kinds, user_aggregate, window_operator
from planner.analysis.properties import NodeProps
from planner.analysis.versioned import versioned
from planner.logical import typing as T
from planner.logical.evaluate import interval_residual, residual_condition, unsupported
from planner.logical.joins import IntervalJoin, Join, JoinKind, LookupJoin, TemporalJoin, WindowJoin
from planner.logical.match import MatchExpr
from planner.logical.operators import (
    Calc,
    Correlate,
    Deduplicate,
    GroupAggregate,
    MatchRecognize,
    Node,
    OverAggregate,
    Scan,
    Sink,
    Sort,
    TopN,
    Union,
    WindowAggregate,
    WindowTVF,
    window_on_proctime,
)
from planner.logical.specs import AggCall, AggFunc, WindowKind, WindowSpec

_DISTINCT_OK = (AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG, AggFunc.MIN, AggFunc.MAX)
# besides the aggregate functions, what an OVER window on time runs (sqlengine.changelog.over)
OVER_ON_TIME = frozenset({AggFunc.LAG, AggFunc.ROW_NUMBER})
# the aggregate functions the changelog aggregations implement (with retraction)
CHANGELOG_AGGREGATES = frozenset({
    AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG, AggFunc.MIN, AggFunc.MAX, AggFunc.FIRST_VALUE, AggFunc.LAST_VALUE, AggFunc.LISTAGG,
    AggFunc.STDDEV_POP, AggFunc.STDDEV_SAMP, AggFunc.VAR_POP, AggFunc.VAR_SAMP,
    AggFunc.ARRAY_AGG, AggFunc.COLLECT, AggFunc.JSON_ARRAYAGG, AggFunc.JSON_OBJECTAGG,
})


@dataclass(frozen=True)
class Windows:
    """What translation carries to a node's output of the windows below it, by window id:
    Spark's window struct (made by a window TVF or window operator, grouped on by the window
    operators above), and the time column of a SESSION table function (its sessions are made by
    the aggregation above it)."""

    structs: frozenset[int] = frozenset()
    session_times: frozenset[int] = frozenset()

    def __or__(self, other: Windows) -> Windows:
        return Windows(self.structs | other.structs, self.session_times | other.session_times)


@dataclass(frozen=True)
class Context:
    props: dict[int, NodeProps]
    lineage: Lineage
    streaming: bool
    windows: Callable[[Node], Windows]
    physical: dict[int, Physical]
    time_zone: str = "UTC"

    def updating_input(self, node: Node) -> bool:
        return any(not self.props[c.node_id].changelog.insert_only for c in node.inputs)

    def changelog(self, node: Node) -> bool:
        """Whether the operator runs as a changelog operator."""
        p = self.physical.get(node.node_id)
        return p is not None and p.changelog

    def after_changelog(self, node: Node) -> Node | None:
        """The changelog operator whose rows (with their kinds) reach this node's input."""
        for child in node.inputs:
            if carries_kinds(child, self.physical):
                return next((n for n in child.walk() if self.changelog(n)), child)
        return None


# each check takes its own operator class
Check = Callable[[Any, Context], list[Problem]]


def _carried(node: Node, ctx: Context, window: WindowSpec, what: str, child: Node | None = None) -> Problem | None:
    """The window struct a window operator groups on must reach it from the window TVF or window
    operator that made it."""
    child = child if child is not None else node.inputs[0]
    if window.id in ctx.windows(child).structs:
        return None
    if window.id in ctx.windows(child).session_times:
        through = "a SESSION window table function (its sessions are made by an aggregation)"
    else:
        ender = next((n for n in child.walk() if type(n) not in CARRIES), None)
        through = f"a {ender.kind if ender is not None else 'plan'} step that does not keep it"
    return problem(Code.WINDOW_NOT_CARRIED, node, what=what, window=f"{window.kind.value}({window.time_field})", through=through)


def _first(*found: Problem | None) -> list[Problem]:
    return [p for p in found if p is not None][:1]


# -- per operator ------------------------------------------------------------------------------


def check_sink(node: Sink, ctx: Context) -> list[Problem]:
    if not ctx.streaming:
        return []
    if node.overwrite:
        return [problem(Code.INSERT_OVERWRITE_STREAMING, node)]
    changelog = ctx.props[node.input.node_id].changelog
    spec = spec_of(node.table)
    if not changelog.insert_only and spec is not None and not spec.accepts_updates:
        key = ", ".join(changelog.key) or "no key"
        return [problem(Code.SINK_TAKES_APPENDS, node, connector=spec.name, key=key)]
    return []


def check_scan(node: Scan, ctx: Context) -> list[Problem]:
    spec = spec_of(node.table)
    if not ctx.streaming and spec is not None and spec.upsert_source:
        return [problem(Code.UPSERT_SOURCE, node, table=f"`{node.table.name}`", connector=spec.name)]
    return []


def _user_aggregates(node: GroupAggregate | WindowAggregate | OverAggregate, what: str | None) -> Problem | None:
    """A Python aggregate function needs ``retract`` where its input takes rows back (``what``
    says why, None: it does not)."""
    for a in node.aggs:
        sig = a.udf.signature if a.udf is not None else None
        if a.udf is None or sig is None:
            continue
        if what is not None and not sig.retracts:
            return problem(Code.USER_AGGREGATE_RETRACT, node, a.call, function=a.udf.name, target=sig.target, what=what)
    return None


def check_over(node: OverAggregate, ctx: Context) -> list[Problem]:
    """A streaming OVER runs as a changelog operator on event or processing time (``sqlengine.changelog.over``)."""
    # a bounded frame over a time attribute takes each row back when it leaves the frame (over
    # changes computes each frame afresh)
    over_time = not node.on_changes(not ctx.updating_input(node)) if ctx.streaming else not node.on_changes(True)
    leaving = "its OVER frame takes each row back when the row leaves it" if over_time and node.preceding is not None else None
    user = _user_aggregates(node, leaving)
    if user is not None:
        return [user]
    if not ctx.streaming:
        # Spark's window functions take no DISTINCT (the changelog operator keeps the set of values)
        distinct = next((a for a in node.aggs if a.distinct and a.func in (AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG)), None)
        return [problem(Code.DISTINCT_AGGREGATE, node, function=distinct.func.value)] if distinct else []
    on_changes = node.on_changes(not ctx.updating_input(node))
    for call in node.aggs:
        if call.func in CHANGELOG_AGGREGATES or call.udf is not None:
            continue
        if on_changes or call.func not in OVER_ON_TIME:
            return [_over_function(node, call, on_changes)]
        if call.func == AggFunc.ROW_NUMBER and not node.rows:
            other = next(a for a in node.aggs if a.func != AggFunc.ROW_NUMBER)
            return [problem(Code.OVER_SAME_WINDOW, node, function=other.func.value if other.udf is None else other.udf.name)]
        if call.func == AggFunc.LAG and (lag := _lag(node, call)) is not None:
            return [lag]
    if on_changes:
        # over changes (sqlengine.changelog.over_changes): a RANGE frame with a size needs one
        # ascending key with a number or a time to measure it
        order = node.input.field(node.order_field)
        if not node.rows and node.preceding is not None and (
            len(node.order) > 1 or any(d for _, d in node.order) or order is None
            or not T.is_type(order.type, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL, *T.TIMESTAMPS, exp.DType.DATE)
        ):
            return [problem(Code.OVER_NOT_ROWTIME, node)]
        distinct = next((a for a in node.aggs if a.distinct), None)
        return [problem(Code.DISTINCT_AGGREGATE, node, function=distinct.func.value)] if distinct else []
    # after a MATCH_RECOGNIZE (ordered by its MATCH_ROWTIME(), the only time attribute out of a
    # match) or an OVER on event time, whose time carries the watermark on; after any other
    # changelog operator there is none
    if ctx.after_changelog(node) is not None and not after_release(node, ctx.physical):
        return [problem(Code.OVER_UPDATING_INPUT, node)]
    return []


# what sqlengine.changelog's accumulators can merge (the sessions a row bridges)
MERGEABLE = frozenset({AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG, AggFunc.MIN, AggFunc.MAX})


def _window_operator(node: WindowAggregate, ctx: Context) -> bool:
    """The window aggregation runs on sqlengine's window operator: as a changelog operator, or
    where Spark's windows cannot (window_operator(): in batch mode only a Python aggregate
    function or sessions on a zone's wall clock)."""
    return ctx.changelog(node) or window_operator(node, ctx.time_zone, streaming=ctx.streaming)


def _session_merge(node: WindowAggregate, ctx: Context) -> Problem | None:
    """An event-time SESSION sqlengine's window operator runs (a Python aggregate function, a
    zone's wall clock) merges the accumulators of the sessions a row bridges."""
    if node.window.kind != WindowKind.SESSION or node.on_proctime or not _window_operator(node, ctx):
        return None
    call = next((a for a in node.aggs if a.udf is None and a.func not in MERGEABLE), None)
    if call is None:
        return None
    why = "a Python aggregate function is beside it" if user_aggregate(node) else str(Why.WALL_CLOCK_SESSIONS)
    return problem(Code.SESSION_MERGE, node, function=call.func.value, why=why)


def _over_function(node: OverAggregate, call: AggCall, on_changes: bool) -> Problem:
    """Why a function other than an aggregate does not run in this streaming OVER window."""
    if call.func in (AggFunc.LEAD, AggFunc.NTILE, AggFunc.PERCENT_RANK, AggFunc.CUME_DIST):
        return problem(Code.OVER_FUNCTION_STREAM, node, function=call.func.value)
    if call.func in (AggFunc.RANK, AggFunc.DENSE_RANK) and not on_changes:
        return problem(Code.OVER_RANK_TIES, node, function=call.func.value)
    return problem(Code.OVER_FUNCTION, node, function=call.func.value)  # over changes


def _lag(node: OverAggregate, call: AggCall) -> Problem | None:
    """LAG(value, offset, default) runs with a literal offset of 0 or more (Flink fails the job at
    a negative one) and a default of the value's type (Flink asks for a cast)."""
    from planner.binder.types import type_of
    from planner.dialect import type_sql

    if len(call.args) > 1:
        offset = call.args[1]
        if not (isinstance(offset, exp.Literal) and offset.is_int and int(offset.name) >= 0):
            return problem(Code.OVER_LAG, node,
                           what=f"its offset must be a whole number of rows, 0 or more, not `{offset.sql()}`")
    if len(call.args) > 2:
        fields = {f.name: f for f in node.input.fields}
        value, default = type_of(call.args[0], fields), type_of(call.args[2], fields)
        # Flink compares the types' roots, CHAR and VARCHAR alike
        if _type_root(value) != _type_root(default):
            return problem(Code.OVER_LAG, node, what=f"please explicitly cast default value {type_sql(default)} to "
                           f"{type_sql(value)} (as Flink asks)")
    return None


def _type_root(t: exp.DataType) -> object:
    return "CHARACTER" if T.is_type(t, *T.STRINGS) else t.this


def check_match(node: MatchRecognize, ctx: Context) -> list[Problem]:
    """What the changelog operator (sqlengine.changelog.match_recognize) does not run."""
    if node.spec is None:
        return [problem(Code.MATCH_RECOGNIZE, node, what="without its bound pattern")]
    order = node.input.field(node.order_field)
    if order is None or order.time is None:
        return [problem(Code.MATCH_RECOGNIZE, node, what="ordered by no time attribute")]
    if node.all_rows:
        return [problem(Code.MATCH_RECOGNIZE, node, what="with ALL ROWS PER MATCH (Flink has ONE ROW PER MATCH only)")]
    if ctx.streaming and ctx.updating_input(node):
        return [problem(Code.MATCH_RECOGNIZE, node, what="over an updating input (nor can Flink's)")]
    for name, expr in (*node.spec.defines, *node.spec.measures):
        bad = unsupported(expr.tree, MatchExpr.slot_fields([T.UNKNOWN] * len(expr.navs)))
        if bad is not None:
            return [problem(Code.MATCH_RECOGNIZE, node, what=f"with `{_shown(bad, expr)}` in {name}")]
    return []


def _shown(sql: str, expr: MatchExpr) -> str:
    """A part of a pattern expression as SQL, its reads from the match written out."""
    for i in reversed(range(len(expr.navs))):
        sql = sql.replace(MatchExpr.slot(i), str(expr.navs[i]))
    return sql


def check_topn(node: TopN, ctx: Context) -> list[Problem]:
    if node.window is not None:
        found = _first(
            _carried(node, ctx, node.window, "window Top-N"),
            # Flink's streaming window Top-N takes ROW_NUMBER only; its batch Rank takes them all
            problem(Code.WINDOW_RANK_FUNCTION, node, function=node.rank_func.value)
            if ctx.streaming and node.rank_func != AggFunc.ROW_NUMBER and not node.rule else None,
        )
        return found
    return []


def check_dedup(node: Deduplicate, ctx: Context) -> list[Problem]:
    if node.window is not None:
        return _first(_carried(node, ctx, node.window, "window deduplication"))
    if ctx.streaming and ctx.updating_input(node) and node.on_proctime:
        return [problem(Code.DEDUP_PROCTIME_CHANGES, node)]
    return []


def check_sort(node: Sort, ctx: Context) -> list[Problem]:
    if not ctx.streaming or (node.limit is not None and node.order):
        return []  # ORDER BY ... LIMIT: a ranking of the whole input (a changelog operator)
    first = node.first_key
    if first is None or first.time is None or node.order[0][1]:
        return [problem(Code.SORT_NOT_TIME, node)]
    return [problem(Code.SORT_STREAMING, node)]


def check_correlate(node: Correlate, ctx: Context) -> list[Problem]:
    if node.call.key != "unnest":
        udf = node.call.meta["user_function"]  # the binder takes only user table functions here
        if udf.signature is not None:  # a Python function
            return []
        d = udf.definition
        return [problem(Code.TABLE_FUNCTION, node, node.call, name=d.name, class_name=d.class_name, language=d.language)]
    if len(node.call.expressions) != 1:
        return [problem(Code.UNNEST_SEVERAL, node)]
    return []


def check_window_aggregate(node: WindowAggregate, ctx: Context) -> list[Problem]:
    w = node.window
    carried = ctx.windows(node.input)
    out: list[Problem] = []
    if not node.legacy:  # a GROUP BY group window is its own window: nothing carried to check
        if w.id in carried.session_times and w.id not in carried.structs:
            # Spark's session_window makes sessions per group key; a SESSION table function makes them
            # per PARTITION BY key (without one, over all rows): the two must be the same keys
            if set(w.partition_keys) != set(node.keys):
                out.append(problem(Code.SESSION_KEYS, node))
        else:
            out += _first(_carried(node, ctx, w, "window aggregation"))
    out += _first(_user_aggregates(node, None), _session_merge(node, ctx))
    if ctx.streaming:
        out += _first(problem(Code.WINDOW_AGG_UPDATING_INPUT, node) if ctx.updating_input(node) else None)
    out += _first(_window_operator_aggregates(node, ctx))
    return out[:1]


def _window_operator_aggregates(node: WindowAggregate, ctx: Context) -> Problem | None:
    """sqlengine's window operator runs the aggregates it has accumulators for."""
    if not _window_operator(node, ctx):
        return None
    physical = ctx.physical.get(node.node_id)
    why = str(physical.why) if physical is not None and physical.why is not None else str(Why.WALL_CLOCK_SESSIONS)
    for call in node.aggs:
        if call.func not in CHANGELOG_AGGREGATES and call.udf is None:
            return problem(Code.CHANGELOG_AGGREGATE, node, function=call.func.value, why=why)
    return None


def check_group_aggregate(node: GroupAggregate, ctx: Context) -> list[Problem]:
    updating = ctx.streaming and ctx.updating_input(node)
    user = _user_aggregates(node, "its input updates or retracts rows" if updating else None)
    if user is not None:
        return [user]
    if not ctx.changelog(node):
        return []
    for call in node.aggs:
        if call.func not in CHANGELOG_AGGREGATES and call.udf is None:
            return [problem(Code.CHANGELOG_AGGREGATE, node, function=call.func.value, why=str(ctx.physical[node.node_id].why))]
    return []


def check_temporal_join(node: TemporalJoin, ctx: Context) -> list[Problem]:
    """What Flink refuses (an outer join other than LEFT, a right side without a primary key or
    event time, a key not joined on) and what we cannot run yet (an updating left side)."""
    if node.join_kind not in (JoinKind.INNER, JoinKind.LEFT):
        return [problem(Code.TEMPORAL_JOIN_KIND, node, join=node.join_kind.value)]
    v = versioned(node.right, ctx.props)
    right = ", ".join(f"`{t}`" for t in ctx.lineage.tables(node.right)) or "the right side"
    if not v.key:
        return [problem(Code.TEMPORAL_JOIN_NO_KEY, node, right=right)]
    if v.time is None:
        return [problem(Code.TEMPORAL_JOIN_NO_TIME, node, right=right)]
    joined = {b for _, b in node.equi_keys}
    if not set(v.key) <= joined:
        return [problem(Code.TEMPORAL_JOIN_KEY_NOT_JOINED, node, key=", ".join(re.sub(r"\$\d+$", "", k) for k in v.key))]
    if not ctx.props[node.left.node_id].changelog.insert_only:
        return [problem(Code.TEMPORAL_JOIN_UPDATING_LEFT, node)]
    if not ctx.streaming:
        through = v.history.input if v.history is not None else node.right
        if not ctx.props[through.node_id].changelog.insert_only:
            return [problem(Code.TEMPORAL_JOIN_BATCH, node, right=right)]
    residual = residual_condition(node)
    bad = unsupported(residual, node.fields) if residual is not None else None
    if bad is not None:
        return [problem(Code.JOIN_CONDITION, node, expression=bad, join=f"temporal {node.join_kind.value}")]
    return []


def check_lookup_join(node: LookupJoin, ctx: Context) -> list[Problem]:
    if node.join_kind not in (JoinKind.INNER, JoinKind.LEFT):
        return [problem(Code.LOOKUP_JOIN_KIND, node)]
    if ctx.streaming and not ctx.lineage.bounded_input(node.right):
        return [problem(Code.LOOKUP_JOIN_UNBOUNDED, node)]
    return []


def check_window_join(node: WindowJoin, ctx: Context) -> list[Problem]:
    found = _first(
        _carried(node, ctx, node.window, "window join", node.left),
        _carried(node, ctx, replace(node.window, id=node.right_window), "window join", node.right),
    )
    if not found and ctx.streaming and node.join_kind != JoinKind.INNER:
        found = [problem(Code.WINDOW_JOIN_OUTER, node)]
    return found


def check_interval_join(node: IntervalJoin, ctx: Context) -> list[Problem]:
    if not ctx.streaming:
        return []
    if ctx.updating_input(node):
        return [problem(Code.INTERVAL_JOIN_UPDATING_INPUT, node)]
    # a changelog operator (sqlengine.changelog.interval_join), of every kind: on processing time,
    # or on event time after a MATCH_RECOGNIZE or an OVER (planner.analysis.physical.after_release)
    if ctx.changelog(node):
        residual = interval_residual(node)
        bad = unsupported(residual, node.fields) if residual is not None else None
        return [problem(Code.JOIN_CONDITION, node, expression=bad, join=node.join_kind.value)] if bad is not None else []
    if node.join_kind == JoinKind.FULL:  # (a semi or anti join with a time bound is a regular join)
        return [problem(Code.INTERVAL_JOIN_KIND, node, join=node.join_kind.value)]
    return []


def check_join(node: Join, ctx: Context) -> list[Problem]:
    if not ctx.changelog(node) or node.join_kind == JoinKind.INNER or node.condition is None:
        return []
    # an outer, semi or anti join decides per pair of rows whether they match: the part of the
    # condition that is not an equality of keys is evaluated in Python (planner.logical.evaluate),
    # or on the JVM by Spark's own expressions, which take any but a user-defined function's call
    residual = residual_condition(node)
    physical = ctx.physical.get(node.node_id)
    if residual is not None and physical is not None and physical.jvm and not calls_user_function(residual):
        return []
    bad = unsupported(residual, node.fields) if residual is not None else None
    if bad is not None:
        return [problem(Code.JOIN_CONDITION, node, expression=bad, join=node.join_kind.value)]
    return []


def check_union(node: Union, ctx: Context) -> list[Problem]:
    if ctx.streaming and not node.all and (ctx.updating_input(node) or ctx.after_changelog(node) is not None):
        return [problem(Code.UNION_UPDATING, node)]
    return []


CHECKS: dict[type[Node], Check] = {
    Scan: check_scan,
    Sink: check_sink,
    OverAggregate: check_over,
    MatchRecognize: check_match,
    TopN: check_topn,
    Deduplicate: check_dedup,
    Sort: check_sort,
    Correlate: check_correlate,
    WindowAggregate: check_window_aggregate,
    GroupAggregate: check_group_aggregate,
    TemporalJoin: check_temporal_join,
    LookupJoin: check_lookup_join,
    WindowJoin: check_window_join,
    IntervalJoin: check_interval_join,
    Join: check_join,
    Union: check_union,
}

# operators whose translation passes on what their inputs carry of windows (a window operator
# above can still group on them); the others end them
CARRIES: frozenset[type[Node]] = frozenset(
    {Calc, Correlate, WindowTVF, Join, IntervalJoin, WindowJoin, LookupJoin, TemporalJoin, OverAggregate, Sort, Sink}
)


def carried_windows(node: Node, memo: dict[int, Windows], time_zone: str = "UTC",
                    physical: dict[int, Physical] | None = None, *, streaming: bool) -> Windows:
    """What translation carries of windows to ``node``'s output (see ``Windows``): a window TVF
    and a window operator make them; stateless steps, joins (both sides), OVER and ORDER BY pass
    them on; aggregations, rankings and UNION end them. A window operator carries its own."""
    done = memo.get(node.node_id)
    if done is not None:
        return done
    out = Windows()
    if type(node) in CARRIES:
        # a semi or anti join emits the left side's rows only
        semi = isinstance(node, Join) and node.join_kind in (JoinKind.SEMI, JoinKind.ANTI)
        for child in node.inputs[:1] if semi else node.inputs:
            out |= carried_windows(child, memo, time_zone, physical, streaming=streaming)
    if isinstance(node, WindowTVF):
        if node.window.kind == WindowKind.SESSION:
            out |= Windows(session_times=frozenset({node.window.id}))
        else:
            out |= Windows(structs=frozenset({node.window.id}))
    elif window_operator(node, time_zone, streaming=streaming) or (isinstance(node, WindowAggregate) and (p := (physical or {}).get(node.node_id)) is not None
                                              and p.changelog):
        pass  # a changelog operator assigns its windows: no struct, no event time to carry on
    elif isinstance(node, (TopN, Deduplicate)) and node.window is not None and (
            (streaming and window_on_proctime(node, node.window))
            or ((p := (physical or {}).get(node.node_id)) is not None and p.changelog)):
        pass  # ranked by a changelog operator: no struct either (in batch mode Spark's window functions rank)
    elif isinstance(node, WindowAggregate) or (isinstance(node, (TopN, Deduplicate)) and node.window is not None):
        window = node.window
        assert window is not None
        out = Windows(structs=frozenset({window.id}))
    memo[node.node_id] = out
    return out
