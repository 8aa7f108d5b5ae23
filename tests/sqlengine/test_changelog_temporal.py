"""The event-time temporal join operator on its own (plain Python over Arrow): left rows wait for
the watermark, then each joins the version of its key valid at its time (the latest at or before
it; a deletion matches nothing); INNER emits matches only, LEFT pads the rest; versions the
watermark has passed are released except the latest per key. Checked against a plain-Python model
on random input, micro-batches and watermarks, with the state pickled between calls as Spark
stores it."""

from __future__ import annotations

import pickle
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.kinds import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.temporal import TemporalJoin
from tests.sqlengine.test_changelog_operators import out_schema

# left: (time, currency, amount); right: (time, currency, rate)
LEFT_FIELDS = [("t", pa.int64()), ("cur", pa.string()), ("amount", pa.int64())]
RIGHT_FIELDS = [("t", pa.int64()), ("rcur", pa.string()), ("rate", pa.int64())]
OUT = [("cur", pa.string()), ("amount", pa.int64()), ("rcur", pa.string()), ("rate", pa.int64())]

Step = tuple[list[tuple[int | None, str | None, int]], list[tuple[int, int | None, str | None, int]], int]


def join(kind: str = "INNER", residual: Any = None, ttl_ms: int | None = None) -> TemporalJoin:
    return TemporalJoin(kind, [0], [0], 2, 2, out_schema(OUT), residual=residual, ttl_ms=ttl_ms)


def _table(fields: list[tuple[str, pa.DataType]], rows: list[tuple[Any, ...]]) -> pa.Table | None:
    if not rows:
        return None
    schema = pa.schema([pa.field("kind", pa.int8()), *(pa.field(n, t) for n, t in fields)])
    cols = list(zip(*rows, strict=True))
    return pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(cols, schema, strict=True)], schema=schema)


def run(op: TemporalJoin, steps: list[Step], ttl_now: list[int] | None = None, state: Any = None) -> tuple[list[tuple[Any, ...]], Any]:
    """Per step, the left rows (time, key, amount), the right rows (kind, time, key, rate) and
    the watermark, from ``state`` (default: none); the rows emitted in order, and the final state."""
    blob = pickle.dumps(op.new_state() if state is None else state)
    out: list[tuple[Any, ...]] = []
    for i, (left, right, watermark) in enumerate(steps):
        now = ttl_now[i] if ttl_now else 0
        state = pickle.loads(blob)
        inputs = [_table(LEFT_FIELDS, [(INSERT, *r) for r in left]), _table(RIGHT_FIELDS, list(right))]
        for c in (op.apply(state, inputs, now), op.fire(state, watermark, now)):
            for r in c.table(op.out_schema).to_pylist():
                values = list(r.values())
                assert values[0] == INSERT
                out.append(tuple(values[1:]))
        blob = pickle.dumps(state)
    return out, pickle.loads(blob)


def test_a_left_row_waits_for_the_watermark_then_joins_the_version_valid_at_its_time():
    op = join()
    out, _ = run(op, [
        ([(15, "EUR", 1)], [(INSERT, 10, "EUR", 100), (UPDATE_AFTER, 20, "EUR", 200)], 12),
        ([(25, "EUR", 2), (5, "EUR", 3)], [], 30),
    ])
    # nothing before the watermark passes 15; the row at 5 has no version yet (INNER: dropped)
    assert out == [("EUR", 1, "EUR", 100), ("EUR", 2, "EUR", 200)]


def test_left_pads_a_row_without_a_version_or_whose_version_is_a_deletion():
    op = join("LEFT")
    out, _ = run(op, [
        ([(5, "EUR", 1), (15, "EUR", 2), (25, "EUR", 3), (12, "USD", 4), (12, None, 5)],
         [(INSERT, 10, "EUR", 100), (DELETE, 20, "EUR", 100)], 100),
    ])
    assert out == [
        ("EUR", 1, None, None), ("USD", 4, None, None), (None, 5, None, None), ("EUR", 2, "EUR", 100), ("EUR", 3, None, None),
    ]


def test_rows_come_out_in_time_order_and_update_before_is_ignored():
    op = join()
    out, _ = run(op, [
        ([(30, "EUR", 1), (10, "EUR", 2), (20, "EUR", 3)],
         [(INSERT, 0, "EUR", 100), (UPDATE_BEFORE, 0, "EUR", 100), (UPDATE_AFTER, 20, "EUR", 200)], 100),
    ])
    assert out == [("EUR", 2, "EUR", 100), ("EUR", 3, "EUR", 200), ("EUR", 1, "EUR", 200)]


def test_the_residual_condition_filters_the_version_found():
    op = join("LEFT", residual=lambda r: r[1] > r[3])  # amount > rate
    out, _ = run(op, [([(10, "EUR", 50), (11, "EUR", 500)], [(INSERT, 0, "EUR", 100)], 100)])
    assert out == [("EUR", 50, None, None), ("EUR", 500, "EUR", 100)]


def test_versions_the_watermark_passed_are_released_but_the_latest():
    op = join()
    out, state = run(op, [
        ([], [(INSERT, 10, "EUR", 1), (UPDATE_AFTER, 20, "EUR", 2), (UPDATE_AFTER, 30, "EUR", 3), (INSERT, 10, "USD", 9)], 25),
    ])
    assert out == []
    assert state["versions"] == {("EUR",): {20: ("EUR", 2), 30: ("EUR", 3)}, ("USD",): {10: ("USD", 9)}}
    assert op.next_time(state) == 30  # when the version at 20 can go
    out, state = run(op, [([], [], 25), ([(40, "EUR", 7)], [(DELETE, 35, "USD", 9)], 50)], state=state)
    assert out == [("EUR", 7, "EUR", 3)]
    # EUR keeps its latest; USD's latest passed version is a deletion: the key is gone; no row waits
    assert state["versions"] == {("EUR",): {30: ("EUR", 3)}}
    assert state["pending"] == {} and op.entries(state) == 1 and op.next_time(state) is None


def test_a_key_idle_for_the_state_ttl_loses_its_version_unless_rows_wait():
    op = join("LEFT", ttl_ms=1000)
    out, _ = run(op, [
        ([], [(INSERT, 10, "EUR", 1)], 10),
        ([(20, "EUR", 5)], [], 10),  # written at 500: kept while it waits
        ([], [], 10),
        ([], [], 30),
        ([(40, "EUR", 6)], [], 50),
    ], ttl_now=[0, 500, 5000, 5100, 9000])
    assert out == [("EUR", 5, "EUR", 1), ("EUR", 6, None, None)]


def test_only_inner_and_left():
    with pytest.raises(ValueError):
        TemporalJoin("FULL", [0], [0], 2, 2, out_schema(OUT))


# -- against a model -----------------------------------------------------------------------------

keys = st.sampled_from(["EUR", "USD", None])
left_rows = st.lists(st.tuples(st.integers(0, 40), keys, st.integers(0, 9)), max_size=5)
right_rows = st.lists(st.tuples(st.sampled_from([INSERT, UPDATE_AFTER, DELETE]), st.integers(0, 40), keys, st.integers(0, 9)), max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(left_rows, right_rows, st.integers(0, 12)), min_size=1, max_size=6), st.sampled_from(["INNER", "LEFT"]))
def test_equals_a_model_when_no_row_is_behind_the_watermark(batches, kind):
    # make the input ordered as the watermark promises: every row of a step is after the
    # previous step's watermark; the watermarks rise and the last passes everything
    steps: list[Step] = []
    watermark = 0
    all_left: list[tuple[int, str | None, int]] = []
    all_right: list[tuple[int, int, str | None, int]] = []
    for i, (left, right, advance) in enumerate(batches):
        base = watermark + 1
        lrows = [(base + t, k, a) for t, k, a in left]
        rrows = [(kd, base + t, k, r) for kd, t, k, r in right]
        watermark = base + advance if i < len(batches) - 1 else 10**6
        steps.append((lrows, rrows, watermark))
        all_left += lrows
        all_right += rrows
    out, state = run(join(kind), steps)
    # the model: per left row, the version of its key written last among those at the latest
    # time at or before its own; in time order of the left rows (ties: arrival order)
    want = []
    for t, k, a in sorted(all_left, key=lambda r: r[0]):
        version = None
        if k is not None:
            candidates = [(vt, i) for i, (_, vt, vk, _) in enumerate(all_right) if vk == k and vt <= t]
            if candidates:
                vt = max(candidates)[0]
                kd, _, _, rate = all_right[max(i for c, i in candidates if c == vt)]
                version = None if kd == DELETE else (k, rate)
        if version is not None:
            want.append((k, a, *version))
        elif kind == "LEFT":
            want.append((k, a, None, None))
    assert sorted(out, key=str) == sorted(want, key=str)
    # with the watermark past everything: at most one version per key, and no deletion
    assert all(len(v) == 1 and None not in v.values() for v in state["versions"].values())
    assert state["pending"] == {}


def test_a_versioned_views_deduplication_emits_every_version_of_a_micro_batch():
    """Keep-last on event time folds a micro-batch's changes per key, except where a temporal
    join reads it: there each row it keeps is a version, and an older row is still dropped."""
    from sqlengine.changelog.dedup import Deduplicate

    fields = [("t", pa.int64()), ("cur", pa.string()), ("rate", pa.int64())]
    rows = [(INSERT, 10, "EUR", 1), (INSERT, 20, "EUR", 2), (INSERT, 15, "EUR", 9), (INSERT, 30, "EUR", 3)]
    got = {}
    for every in (False, True):
        op = Deduplicate([1], 0, [pa.int64(), pa.string(), pa.int64()], out_schema(fields), keep_last=True, on_proctime=False,
                         every_change=every)
        changes = op.apply(op.new_state(), [_table(fields, rows)], 0)
        got[every] = [(r["kind"], r["t"]) for r in changes.table(op.out_schema).to_pylist()]
    assert got[False] == [(INSERT, 30)]
    assert got[True] == [(INSERT, 10), (UPDATE_BEFORE, 10), (UPDATE_AFTER, 20), (UPDATE_BEFORE, 20), (UPDATE_AFTER, 30)]
