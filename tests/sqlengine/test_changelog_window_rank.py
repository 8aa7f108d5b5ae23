"""The processing-time window ranking operator on its own (plain Python over Arrow): per window
and partition key it keeps the first N rows by the ORDER BY keys (NULLs first ascending, last
descending, ties in arrival order; the latest arrival first for a deduplication keeping the last
row), and emits them with their row number once the clock reaches the window's end; a window
emitted is released. Checked against a sort of all the rows on random input."""

from __future__ import annotations

import pickle
from collections import Counter

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.window_rank import WindowRank
from tests.sqlengine.test_changelog_operators import out_schema

# the input row: partition key, a value to order by, an id
TYPES = [pa.string(), pa.int64(), pa.int64()]


def operator(n: int, desc: bool, latest_first: bool = False, rank_at: int | None = 3) -> WindowRank:
    fields = [("k", pa.string()), ("v", pa.int64()), ("id", pa.int64())]
    if rank_at is not None:
        fields.insert(rank_at, ("rn", pa.int64()))
    return WindowRank([0], [(1, desc)], TYPES, n, latest_first, rank_at, out_schema(fields))


def batch(rows: list[tuple[str, int | None, int]], window: tuple[int, int]) -> list[pa.Table | None]:
    ks, vs, ids = zip(*rows, strict=True) if rows else ((), (), ())
    return [pa.table({
        "kind": pa.array([INSERT] * len(rows), pa.int8()), "ws": pa.array([window[0]] * len(rows), pa.int64()),
        "we": pa.array([window[1]] * len(rows), pa.int64()), "k": pa.array(ks, pa.string()),
        "v": pa.array(vs, pa.int64()), "id": pa.array(ids, pa.int64()),
    })]


def test_the_top_rows_of_each_window_and_key_come_out_at_its_end_with_their_numbers() -> None:
    op = operator(2, desc=True)
    state = op.new_state()
    op.apply(state, batch([("a", 5, 1), ("a", 9, 2), ("b", 1, 3), ("a", None, 4)], (0, 1000)), 100)
    state = pickle.loads(pickle.dumps(state))
    op.apply(state, batch([("a", 9, 5), ("a", 7, 6)], (0, 1000)), 600)  # a tie: the earlier arrival first
    op.apply(state, batch([("a", 1, 7)], (1000, 2000)), 1100)
    assert op.entries(state) == 4 and op.next_time(state) == 1000  # at most 2 kept per window and key
    assert not op.fire(state, 999, 999)
    out = op.fire(state, 1000, 1003)
    assert sorted(out.rows) == [("a", 9, 2, 1), ("a", 9, 5, 2), ("b", 1, 3, 1)]
    assert op.entries(state) == 1 and [r[2] for r in op.fire(state, 2000, 2000).rows] == [7]


def test_a_deduplication_keeping_the_last_row_takes_the_latest_of_rows_of_one_time() -> None:
    """Ordered by the processing time, which the rows of a micro-batch share: the latest arrival."""
    op = operator(1, desc=True, latest_first=True, rank_at=None)
    state = op.new_state()
    op.apply(state, batch([("a", 100, 1), ("a", 100, 2)], (0, 1000)), 100)
    op.apply(state, batch([("a", 300, 3), ("a", 300, 4)], (0, 1000)), 300)
    assert op.fire(state, 1000, 1000).rows == [("a", 300, 4)]
    keep_first = operator(1, desc=False, rank_at=None)
    state = keep_first.new_state()
    keep_first.apply(state, batch([("a", 100, 1), ("a", 100, 2)], (0, 1000)), 100)
    assert keep_first.fire(state, 1000, 1000).rows == [("a", 100, 1)]


ROWS = st.lists(st.tuples(st.sampled_from("ab"), st.one_of(st.none(), st.integers(0, 5))), max_size=20)


@settings(max_examples=100, deadline=None)
@given(batches=st.lists(ROWS, max_size=4), n=st.integers(1, 3), desc=st.booleans())
def test_each_window_emits_the_first_n_of_a_sort_of_its_rows(batches, n, desc) -> None:
    op = operator(n, desc)
    state = op.new_state()
    arrived = []
    for rows in batches:
        numbered = [(k, v, len(arrived) + i) for i, (k, v) in enumerate(rows)]
        arrived += numbered
        op.apply(state, batch(numbered, (0, 1000)), 0)
        state = pickle.loads(pickle.dumps(state))
    got = Counter(op.fire(state, 1000, 1000).rows)

    def order(r: tuple[str, int | None, int]) -> tuple:
        v = r[1]  # NULLs first ascending, last descending; ties by arrival
        return ((1,) if v is None else (0, -v)) if desc else ((0,) if v is None else (1, v)), r[2]

    want = []
    for k in "ab":
        ranked = sorted((r for r in arrived if r[0] == k), key=order)[:n]
        want += [(*r, i + 1) for i, r in enumerate(ranked)]
    assert got == Counter(want)
    assert op.entries(state) == 0
