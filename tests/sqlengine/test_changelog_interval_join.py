"""The interval join on processing time on its own (plain Python over Arrow): over micro-batches
read at growing times, with the clock firing after each as the processor does, it emits every
pair of rows whose times meet the bound (and the rest of the condition) exactly once, and for an
outer side each row without a match once, padded, after its time has passed; a row is released
when no row read later can meet it. Checked against all pairs on random input."""

from __future__ import annotations

import pickle
from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.interval_join import ProcTimeIntervalJoin
from sqlengine.changelog.kinds import INSERT
from tests.sqlengine.test_changelog_operators import out_schema

OUT = out_schema([("k", pa.int64()), ("a", pa.int64()), ("k2", pa.int64()), ("b", pa.int64())])


def side(rows: list[tuple[int, int]], t: int) -> pa.Table:
    """Rows (key, value) read at ``t`` ms."""
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "t": pa.array([t] * len(rows), pa.int64()),
                     "k": pa.array([r[0] for r in rows], pa.int64()), "v": pa.array([r[1] for r in rows], pa.int64())})


def run(op: ProcTimeIntervalJoin, batches: list[tuple[int, list[tuple[int, int]], list[tuple[int, int]]]]) -> Counter:
    """Per micro-batch: its time, its left rows and its right rows; the clock fires 10 ms after."""
    state = op.new_state()
    out: Counter = Counter()
    for t, left, right in batches:
        changes = op.apply(state, [side(left, t) if left else None, side(right, t) if right else None], t)
        state = pickle.loads(pickle.dumps(state))
        fired = op.fire(state, t + 10, t + 10)
        assert set(changes.kinds + fired.kinds) <= {INSERT}
        out.update(changes.rows + fired.rows)
    return out


def test_a_left_row_meets_the_right_rows_read_within_the_bound_and_is_then_released() -> None:
    """l.pt BETWEEN r.pt - 5 s AND r.pt: a left row meets right rows read up to 5 s after it."""
    op = ProcTimeIntervalJoin("INNER", ([0], [0]), (2, 2), -5000, 0, OUT)
    state = op.new_state()
    op.apply(state, [side([(1, 10)], 1000), None], 1000)
    assert op.fire(state, 1010, 1010).rows == [] and op.entries(state) == 1 and op.next_time(state) == 6001
    got = op.apply(state, [None, side([(1, 20), (2, 30)], 3000)], 3000).rows
    assert got == [(1, 10, 1, 20)]
    op.fire(state, 3010, 3010)  # the right rows (kept until their own time) go
    assert op.entries(state) == 1
    assert op.apply(state, [None, side([(1, 40)], 6000)], 6000).rows == [(1, 10, 1, 40)]  # the bound is inclusive
    op.fire(state, 6010, 6010)
    assert op.entries(state) == 0


def test_outer_sides_come_out_padded_once_their_time_has_passed_unmatched() -> None:
    op = ProcTimeIntervalJoin("FULL", ([0], [0]), (2, 2), -1000, 1000, OUT)
    out = run(op, [(0, [(1, 1), (2, 2)], [(1, 5)]), (3000, [], [(3, 7)]), (9000, [], [])])
    assert out == Counter({(1, 1, 1, 5): 1, (2, 2, None, None): 1, (None, None, 3, 7): 1})


def test_the_rest_of_the_condition_decides_among_the_rows_the_bound_admits() -> None:
    op = ProcTimeIntervalJoin("LEFT", ([0], [0]), (2, 2), -1000, 0, OUT, residual=lambda r: r[3] > r[1])
    out = run(op, [(0, [(1, 5)], [(1, 3)]), (500, [], [(1, 9)]), (5000, [], [])])
    assert out == Counter({(1, 5, 1, 9): 1})


BATCH = st.tuples(st.lists(st.tuples(st.integers(1, 2), st.integers(0, 9)), max_size=3),
                  st.lists(st.tuples(st.integers(1, 2), st.integers(0, 9)), max_size=3))


@settings(max_examples=80, deadline=None)
@pytest.mark.parametrize("kind", ["INNER", "LEFT", "RIGHT", "FULL"])
@given(batches=st.lists(BATCH, max_size=6), gaps=st.lists(st.sampled_from([20, 400, 1000, 1500, 3000]), min_size=6, max_size=6),
       bound=st.sampled_from([(-2000, 0), (0, 1000), (-1000, 1000), (500, 2500)]))
def test_every_pair_the_bound_admits_once_and_the_unmatched_padded(kind, batches, gaps, bound) -> None:
    """Micro-batches read after the clock fired for the one before (as they come)."""
    lower, upper = bound
    op = ProcTimeIntervalJoin(kind, ([0], [0]), (2, 2), lower, upper, OUT)
    timed, t = [], 1000
    for (left, right), gap in zip(batches, gaps, strict=False):
        t += gap
        timed.append((t, left, right))
    got = run(op, [*timed, (t + 100_000, [], [])])  # a last batch long after: everything released
    lefts = [(t, r) for t, left, _ in timed for r in left]
    rights = [(t, r) for t, _, right in timed for r in right]
    want: Counter = Counter()
    for lt, lr in lefts:
        for rt, rr in rights:
            if lr[0] == rr[0] and rt + lower <= lt <= rt + upper:
                want[(*lr, *rr)] += 1
    if kind in ("LEFT", "FULL"):
        want.update((*lr, None, None) for lt, lr in lefts if not any(lr[0] == rr[0] and rt + lower <= lt <= rt + upper for rt, rr in rights))
    if kind in ("RIGHT", "FULL"):
        want.update((None, None, *rr) for rt, rr in rights if not any(lr[0] == rr[0] and rt + lower <= lt <= rt + upper for lt, lr in lefts))
    assert got == want


def test_a_state_kept_before_the_release_heap_is_released_alike() -> None:
    """A checkpoint of an earlier version holds the sides only: the heap of due keys is rebuilt."""
    op = ProcTimeIntervalJoin("LEFT", ([0], [0]), (2, 2), -1000, 0, OUT)
    state = op.new_state()
    op.apply(state, [side([(1, 10), (2, 20)], 1000), None], 1000)
    old = {"sides": state["sides"]}  # as it was pickled before
    assert op.next_time(old) == 2001
    assert sorted(op.fire(old, 2001, 2001).rows) == [(1, 10, None, None), (2, 20, None, None)]
    assert op.entries(old) == 0 and op.next_time(old) is None
