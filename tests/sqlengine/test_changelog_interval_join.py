"""The interval join operator on its own (plain Python over Arrow). On processing time: over
micro-batches read at growing times, with the clock firing after each as the processor does, it
emits every pair of rows whose times meet the bound (and the rest of the condition) exactly once,
and for an outer side each row without a match once, padded, after its time has passed; a row is
released when no row read later can meet it. On event time (after a MATCH_RECOGNIZE): the same,
with rows in any order within the watermark, each micro-batch's rows applied before its
watermark (a match comes out as the watermark passes it). Both checked against all pairs on
random input."""

from __future__ import annotations

import pickle
from collections import Counter
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.interval_join import IntervalJoin
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import END_OF_TIME_MS
from tests.sqlengine.test_changelog_operators import out_schema

OUT = out_schema([("k", pa.int64()), ("a", pa.int64()), ("k2", pa.int64()), ("b", pa.int64())])


def side(rows: list[tuple[int, int]], t: int) -> pa.Table:
    """Rows (key, value) read at ``t`` ms."""
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "t": pa.array([t] * len(rows), pa.int64()),
                     "k": pa.array([r[0] for r in rows], pa.int64()), "v": pa.array([r[1] for r in rows], pa.int64())})


def run(op: IntervalJoin, batches: list[tuple[int, list[tuple[int, int]], list[tuple[int, int]]]]) -> Counter:
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
    op = IntervalJoin("INNER", ([0], [0]), (2, 2), -5000, 0, OUT)
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
    op = IntervalJoin("FULL", ([0], [0]), (2, 2), -1000, 1000, OUT)
    out = run(op, [(0, [(1, 1), (2, 2)], [(1, 5)]), (3000, [], [(3, 7)]), (9000, [], [])])
    assert out == Counter({(1, 1, 1, 5): 1, (2, 2, None, None): 1, (None, None, 3, 7): 1})


def test_the_rest_of_the_condition_decides_among_the_rows_the_bound_admits() -> None:
    op = IntervalJoin("LEFT", ([0], [0]), (2, 2), -1000, 0, OUT, residual=lambda r: r[3] > r[1])
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
    op = IntervalJoin(kind, ([0], [0]), (2, 2), lower, upper, OUT)
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
    op = IntervalJoin("LEFT", ([0], [0]), (2, 2), -1000, 0, OUT)
    state = op.new_state()
    op.apply(state, [side([(1, 10), (2, 20)], 1000), None], 1000)
    old = {"sides": state["sides"]}  # as it was pickled before
    assert op.next_time(old) == 2001
    assert sorted(op.fire(old, 2001, 2001).rows) == [(1, 10, None, None), (2, 20, None, None)]
    assert op.entries(old) == 0 and op.next_time(old) is None


# -- on event time, after a MATCH_RECOGNIZE ---------------------------------------------------

LOWER, UPPER = -2, 3  # left time BETWEEN right time - 2 AND right time + 3


def event_op(kind: str) -> IntervalJoin:
    return IntervalJoin(kind, ([0], [0]), (2, 2), LOWER, UPPER, OUT, event_time=True)


def timed_side(rows: list[tuple[int, int, int]]) -> pa.Table | None:
    """(time, key, value) rows as an input's table: kind, time, then the row."""
    if not rows:
        return None
    t, k, v = zip(*rows, strict=True)
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "t": pa.array(t, pa.int64()),
                     "k": pa.array(k, pa.int64()), "v": pa.array(v, pa.int64())})


def run_event_time(kind: str, batches: list[tuple[list[tuple[int, int, int]], list[tuple[int, int, int]], int]]) -> Counter:
    """The rows out of ``batches`` (left rows, right rows, the batch's watermark), the state
    pickled between batches, as the processor does: apply, then fire at the watermark; the end of
    the input is the end of time."""
    join = event_op(kind)
    blob, out, seen = pickle.dumps(join.new_state()), Counter(), ([], [])
    for left, right, wm in [*batches, ([], [], END_OF_TIME_MS)]:
        state = pickle.loads(blob)
        for changes in (join.apply(state, [timed_side(left), timed_side(right)], 0), join.fire(state, wm, 0)):
            assert set(changes.kinds) <= {INSERT}
            out.update(changes.rows)
        # held: exactly the rows a row to come (at or after the watermark) can still meet
        seen[0].extend(t for t, _, _ in left)
        seen[1].extend(t for t, _, _ in right)
        assert join.entries(state) == sum(t - LOWER >= wm for t in seen[0]) + sum(t + UPPER >= wm for t in seen[1])
        blob = pickle.dumps(state)
    return out


def brute_force(kind: str, left: list[tuple[int, int, int]], right: list[tuple[int, int, int]]) -> Counter:
    pairs = [(lt, lk, lv, rt, rk, rv) for lt, lk, lv in left for rt, rk, rv in right if lk == rk and rt + LOWER <= lt <= rt + UPPER]
    want = Counter((lk, lv, rk, rv) for _, lk, lv, _, rk, rv in pairs)
    if kind in ("LEFT", "FULL"):
        matched = Counter((lt, lk, lv) for lt, lk, lv, *_ in pairs)
        want.update((k, v, None, None) for t, k, v in left if not matched[(t, k, v)])
    if kind in ("RIGHT", "FULL"):
        matched = Counter(p[3:] for p in pairs)
        want.update((None, None, k, v) for t, k, v in right if not matched[(t, k, v)])
    return want


ROW = st.tuples(st.integers(0, 6), st.integers(0, 2))  # (time within the batch's span, key)


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(["INNER", "LEFT", "RIGHT", "FULL"]),
       spans=st.lists(st.tuples(st.lists(ROW, max_size=5), st.lists(ROW, max_size=5), st.integers(0, 6)), max_size=6))
def test_on_event_time_every_pair_in_the_bound_once_and_every_unmatched_outer_row_padded(kind: str, spans: Any) -> None:
    """Each batch's rows are at or after the previous watermark, in any order; its watermark moves
    on by up to 6 (rows of the same key meet across batches, and are released on the way)."""
    batches, left_all, right_all, wm, v = [], [], [], 0, 0
    for lrows, rrows, step in spans:
        left, right = [], []
        for rows, into in ((lrows, left), (rrows, right)):
            for dt, k in rows:
                v += 1
                into.append((wm + dt, k, v))
        wm += step
        batches.append((left, right, wm))
        left_all += left
        right_all += right
    assert run_event_time(kind, batches) == brute_force(kind, left_all, right_all)


def test_a_row_the_watermark_passed_in_its_own_batch_meets_the_rows_held() -> None:
    """A match comes out of MATCH_RECOGNIZE in the batch whose watermark passed it: it must still
    meet the other side's rows (held until the watermark passes their bound), and is released in
    the same step, padded if it met none."""
    batches = [([(10, 1, 1)], [], 10), ([], [(9, 1, 2), (3, 1, 3)], 12)]
    assert run_event_time("RIGHT", batches) == Counter({(1, 1, 1, 2): 1, (None, None, 1, 3): 1})


def test_a_row_late_for_the_other_side_is_joined_with_what_is_held_and_kept_not() -> None:
    """A right row at 5 behind a watermark of 20 (left rows up to 8 could meet it) meets the left
    row still held at 7 and is released in the same step: the left row at 8 that comes later
    finds nothing (Flink caches no late row either)."""
    batches = [([(7, 1, 1)], [], 4), ([], [(5, 1, 2)], 20), ([(8, 1, 3)], [], 20)]
    assert run_event_time("INNER", batches) == Counter({(1, 1, 1, 2): 1})
