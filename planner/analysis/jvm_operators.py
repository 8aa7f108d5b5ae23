"""Which changelog operators run on the JVM (sqlengine/jvm/*.java, on Spark's
flatMapGroupsWithState) rather than in Python: those with a Java twin that gives exactly the
Python operator's changes, over the types where the two compare and compute values alike.

- Top-N and ORDER BY ... LIMIT (``TopN.java``), with any ranking strategy, ordered by numbers,
  strings, booleans, dates or timestamps;
- group aggregation (``GroupAgg.java``) whose calls are all COUNT(*), COUNT, SUM, AVG, MIN or MAX
  (FILTER allowed), summing numbers and taking the extremes of the ordered types above, with
  DISTINCT of one argument that is not floating (a value Python's dict and Java's map tell apart
  alike), grouped by keys that are not floating (Python's dict and Spark's grouping disagree on
  -0.0 and NaN); under a state TTL only in an unbounded job;
- deduplication of an insert-only input (``Dedup.java``: keep first or last, on event or
  processing time, under a state TTL or not) by keys that are not floating;
- a regular join (``Join.java``: INNER, LEFT, RIGHT, FULL, semi and anti, either input updating) on
  the equality of keys (a condition on one side's fields only NULLs the key of a row that fails
  it; an inner join's condition on both sides' fields filters its output in Spark, another kind's
  decides its matches pair by pair in Spark's expressions, unless it calls a user-defined
  function), each key compared with one of the same type that is not floating,
  with at least one key;
- window aggregation on processing time (``WindowAgg.java``: TUMBLE, HOP, CUMULATE, SESSION)
  with such calls (without DISTINCT) and keys, unless its windows are on the wall clock of a zone whose offset
  changes (daylight saving time: a window's end is not its instant moved by one offset there, and
  its sessions may merge).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from planner.binder.types import type_of
from planner.logical import typing as T
from planner.logical.evaluate import one_sided_residual, residual_condition
from planner.logical.joins import Join, JoinKind
from planner.logical.operators import Deduplicate, GroupAggregate, Node, Sort, TopN, WindowAggregate, window_time_field
from planner.logical.specs import AggFunc
from planner.time_zone import fixed_offset_ms

if TYPE_CHECKING:
    from planner.analysis.physical import RankStrategy

# the value types the Java operators compare exactly as the Python ones (and Flink) do
ORDERED = (*T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL, *T.STRINGS, exp.DType.BOOLEAN, exp.DType.DATE, *T.TIMESTAMPS)
_NUMBERS = (*T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL)
_KEYS = (*T.INTEGERS, exp.DType.DECIMAL, *T.STRINGS, exp.DType.BOOLEAN, exp.DType.DATE, *T.TIMESTAMPS)
_AGGREGATES = {AggFunc.COUNT: None, AggFunc.SUM: _NUMBERS, AggFunc.AVG: _NUMBERS, AggFunc.MIN: ORDERED, AggFunc.MAX: ORDERED}


def jvm_operator(node: Node, strategy: RankStrategy | None, ttl: bool = False, time_zone: str = "UTC", *,
                 bounded: bool = False) -> bool:
    """Whether a changelog operator has a JVM implementation (``strategy``: a ranking's; ``ttl``:
    a state TTL applies to it; ``time_zone``: 'table.local-time-zone'; ``bounded``: every source of
    the job is finite)."""
    if isinstance(node, GroupAggregate):
        # under a TTL in a bounded job it stays in Python: the Java one releases an idle group on
        # Spark's processing-time timeouts, which a bounded job cannot run (they keep Spark running
        # batches without input), so its untouched groups would stay (the Python one sweeps each
        # bucket it touches); the state-verdict case ttl-aggregate measures that release
        return not (ttl and bounded) and _group_aggregate(node, distinct=True)
    if type(node) is Join:  # (not its interval and temporal kinds)
        # Under a TTL too: an expired row is never matched again, whenever Spark releases it (on a
        # timeout, or when its key is next touched in a bounded job). A condition on one side's
        # fields only is that row's: one that fails it matches nothing, as a NULL key does (the
        # JVM join gets it so); one on both sides' fields filters an inner join's output, and
        # decides another kind's matches pair by pair in Spark's expressions, unless it calls a
        # user-defined function (a Python one runs only in Spark's Python runner: such a join
        # stays in Python).
        # Without keys every row is under one key, and Spark counts the JVM operator's state in
        # keys: its growth would not show (the Python operator counts its rows), so it stays there.
        both = one_sided_residual(node, residual_condition(node))[2]
        calls_python = both is not None and node.join_kind != JoinKind.INNER and calls_user_function(both)
        return bool(node.equi_keys) and not calls_python and _join_keys(node)
    if isinstance(node, WindowAggregate):
        return node.on_proctime and _group_aggregate(node) and _one_offset(node, time_zone)
    if isinstance(node, Deduplicate) and strategy is None:  # over changes it ranks: a Top-1 (TopN.java)
        return node.window is None and _keys(node, node.keys) and _ordered(node, ((node.order_field, node.keep_last),))
    if strategy is None or not isinstance(node, (TopN, Sort, Deduplicate)):
        return False
    if isinstance(node, (TopN, Deduplicate)) and node.window is not None:
        return False
    order = ((node.order_field, node.keep_last),) if isinstance(node, Deduplicate) else node.order
    return _ordered(node, order)


def _ordered(node: Node, order: tuple[tuple[str, bool], ...]) -> bool:
    """The Java operators order by these columns as the Python ones do."""
    for name, _ in order:
        f = node.inputs[0].field(name)
        if f is None or not T.is_type(f.type, *ORDERED):
            return False
    return True


def _keys(node: Node, keys: tuple[str, ...]) -> bool:
    """Keys Spark's grouping and Python's dict tell apart alike (not floating: -0.0, NaN)."""
    fields = {f.name: f for f in node.inputs[0].fields}
    return all(k in fields and T.is_type(fields[k].type, *_KEYS) for k in keys)


def calls_user_function(e: exp.Expr) -> bool:
    """Whether ``e`` calls a user-defined function (which the Java operators cannot evaluate)."""
    return any(isinstance(n, exp.Anonymous) and n.meta.get("user_function") is not None for n in e.walk())


def _join_keys(node: Join) -> bool:
    """Each equality of keys compares two columns of one type, which Spark groups as Python
    compares them (not floating)."""
    width = len(node.left.fields)
    names = node.field_names()
    for a, b in node.equi_keys:
        if a not in names[:width] or b not in names[width:]:
            return False
        left, right = node.fields[names.index(a)].type, node.fields[width + names[width:].index(b)].type
        if left != right or not T.is_type(left, *_KEYS):
            return False
    return True


def _one_offset(node: WindowAggregate, time_zone: str) -> bool:
    """The window's bounds are instants, or wall times in a zone of one offset."""
    f = window_time_field(node, node.window)
    return f is None or not T.is_type(f.type, exp.DType.TIMESTAMPLTZ) or fixed_offset_ms(time_zone) is not None


def _group_aggregate(node: GroupAggregate | WindowAggregate, distinct: bool = False) -> bool:
    """Calls and keys the Java calls compute as the Python ones do; ``distinct``: DISTINCT of one
    argument that is not floating too (COUNT of any such, SUM and AVG of numbers)."""
    fields = {f.name: f for f in node.input.fields}
    if not _keys(node, node.keys):
        return False
    for call in node.aggs:
        if call.udf is not None or call.func not in _AGGREGATES:
            return False
        if call.distinct and call.func in (AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG) and not (
                distinct and len(call.args) == 1 and T.is_type(type_of(call.args[0], fields), *_KEYS)):
            return False
        types = _AGGREGATES[call.func]
        if types is not None and not all(T.is_type(type_of(a, fields), *types) for a in call.args):
            return False
    return True
