"""A group aggregation over an insert-only input folds each micro-batch in per key (Arrow
aggregates the batch's rows by key first) when its calls are COUNT, MIN and MAX: the changes it
emits and the state it keeps are those of the row-by-row path, whatever the batches hold."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.aggregate import COMBINE_FROM, AggCallSpec, GroupAggregate
from sqlengine.changelog.kinds import INSERT

CALLS = [AggCallSpec("COUNT", star=True, args=0), AggCallSpec("COUNT"), AggCallSpec("MAX"), AggCallSpec("MIN"), AggCallSpec("MAX")]
ARG_TYPES = [None, pa.int64(), pa.int64(), pa.timestamp("us"), pa.timestamp("us")]
OUT = pa.schema([("k1", pa.int32()), ("k2", pa.string()), ("c", pa.int64()), ("n", pa.int64()), ("mx", pa.int64()),
                 ("t0", pa.timestamp("us")), ("t1", pa.timestamp("us"))])
BASE = dt.datetime(2024, 3, 15)

row = st.tuples(
    st.one_of(st.none(), st.integers(0, 3)), st.sampled_from([None, "a", "b"]),
    st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), st.one_of(st.none(), st.integers(0, 10**6)),
)


def batch(rows: list[tuple]) -> pa.Table:
    k1, k2, v, t = (list(c) for c in zip(*rows, strict=True))
    times = [None if x is None else BASE + dt.timedelta(seconds=x) for x in t]
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "k1": pa.array(k1, pa.int32()), "k2": pa.array(k2, pa.string()),
                     "v": pa.array(v, pa.int64()), "v2": pa.array(v, pa.int64()), "t": pa.array(times, pa.timestamp("us")),
                     "t2": pa.array(times, pa.timestamp("us"))})


def operator() -> GroupAggregate:
    return GroupAggregate(2, CALLS, ARG_TYPES, False, OUT)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(row, min_size=COMBINE_FROM, max_size=200), min_size=1, max_size=4))
def test_folding_by_key_gives_the_row_by_row_changes_and_state(batches):
    combined, by_row = operator(), operator()
    s1, s2 = combined.new_state(), by_row.new_state()
    for rows in batches:
        b = batch(rows)
        assert combined._combinable(b)
        got = combined.apply(s1, [b], 0)
        want = by_row._apply(s2, b, 0)
        assert Counter(zip(got.kinds, got.rows, strict=True)) == Counter(zip(want.kinds, want.rows, strict=True))
    assert s1["groups"] == s2["groups"]


def test_a_batch_with_retractions_or_a_sum_goes_row_by_row():
    b = batch([(1, "a", 5, 1)] * COMBINE_FROM)
    summed = GroupAggregate(2, [AggCallSpec("SUM")], [pa.int64()], False, OUT)
    assert not summed._combinable(b.select(["kind", "k1", "k2", "v"]))
    retracting = GroupAggregate(2, [AggCallSpec("MAX")], [pa.int64()], True, OUT)
    assert not retracting._combinable(b.select(["kind", "k1", "k2", "v"]))
    strings = GroupAggregate(2, [AggCallSpec("MAX")], [pa.string()], False, OUT)
    assert not strings._combinable(b.select(["kind", "k1", "k2", "k2"]).rename_columns(["kind", "k1", "k2", "s"]))
    assert not operator()._combinable(batch([(1, "a", 5, 1)] * (COMBINE_FROM - 1)))
