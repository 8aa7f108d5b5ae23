"""A regular join's ON conjuncts on one side only become a filter on that side's input, where
that keeps the join's result (Flink's join-condition push-down, ``FlinkFilterJoinRule``):

- a conjunct on the right side of an INNER, LEFT, semi or anti join: a right row that fails it
  can match nothing, as if it had not come;
- a conjunct on the left side of an INNER, RIGHT or semi join: likewise for a left row (a semi
  join emits no row without a match).

The preserved side of an outer join (and the left of an anti join) keeps its conjuncts in the
condition: a row that fails one is still emitted, padded. A FULL join keeps all of them. The
join then holds only the rows that can match, and a condition of keys only is one the changelog
join runs on the JVM (``planner.analysis.jvm_operators``)."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from planner.binder.filters import filtered, nests_query_or_aggregate
from planner.binder.joins import and_all, columns_of, conjuncts
from planner.logical.joins import Join, JoinKind
from planner.logical.walk import find_all

# functions whose result differs call by call: evaluated per pair of rows, not once per row (Flink
# pushes only deterministic conjuncts)
_NONDETERMINISTIC = {"RAND", "RAND_INTEGER", "UUID"}

_PUSH_LEFT = {JoinKind.INNER, JoinKind.RIGHT, JoinKind.SEMI}
_PUSH_RIGHT = {JoinKind.INNER, JoinKind.LEFT, JoinKind.SEMI, JoinKind.ANTI}


def _movable(c: exp.Expr) -> bool:
    if nests_query_or_aggregate(c):
        return False
    names = (n.name if isinstance(n, exp.Anonymous) else n.sql_name() for n in find_all(c, exp.Func))
    return not any(name.upper() in _NONDETERMINISTIC for name in names)


def push_join_filters(join: Join) -> Join:
    """``join`` with its one-sided ON conjuncts moved into its inputs where the result is the same;
    a join of another kind (interval, window, temporal, lookup) as it is."""
    if type(join) is not Join:
        return join
    parts = conjuncts(join.condition)
    left_names = {f.name for f in join.left.fields}
    right_names = {f.name for f in join.right.fields}
    to_left: list[exp.Expr] = []
    to_right: list[exp.Expr] = []
    keep: list[exp.Expr] = []
    for c in parts:
        names = columns_of(c)
        if names and names <= left_names and join.join_kind in _PUSH_LEFT and _movable(c):
            to_left.append(c)
        elif names and names <= right_names and join.join_kind in _PUSH_RIGHT and _movable(c):
            to_right.append(c)
        else:
            keep.append(c)
    if not to_left and not to_right:
        return join
    return replace(
        join, left=filtered(join.left, to_left), right=filtered(join.right, to_right), condition=and_all(keep),
    )
