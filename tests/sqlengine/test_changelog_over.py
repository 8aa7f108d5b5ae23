"""The OVER aggregation operator on its own (plain Python over Arrow): rows wait for the
watermark and come out once, in time order per key, with the aggregates of their frame (ROWS:
the n rows before in time and arrival order; RANGE: every row within the range, peers of one
time together); rows at or before a key's latest emitted time are late and dropped; a RANGE
key's state is released once the watermark is past its last row plus the range. Checked against
a plain-Python model of each frame on random input, micro-batches and watermarks, with the
state pickled between calls as Spark stores it."""

from __future__ import annotations

import pickle
from decimal import Decimal
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.aggregate import AggCallSpec
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.over import OverAggregate
from sqlengine.changelog.values import Typing
from tests.sqlengine.test_changelog_operators import out_schema

# input: kind, time (ms), then the row (key, value), then the arguments: COUNT(*) has none,
# SUM(value) and MIN(value) one each
IN_FIELDS = [("t", pa.int64()), ("k", pa.string()), ("v", pa.int64()), ("a1", pa.int64()), ("a2", pa.int64())]
OUT = [("k", pa.string()), ("v", pa.int64()), ("n", pa.int64()), ("s", pa.int64()), ("lo", pa.int64())]
CALLS = [
    AggCallSpec("COUNT", star=True, args=0, typing=Typing("long")),
    AggCallSpec("SUM", typing=Typing("long")),
    AggCallSpec("MIN", typing=Typing("long")),
]


def over(rows: bool, preceding: int | None, ttl_ms: int | None = None) -> OverAggregate:
    types = [None, pa.int64(), pa.int64()]
    return OverAggregate([0], 2, rows, preceding, CALLS, types, out_schema(OUT), ttl_ms)


def batch(*rows: tuple[int, str | None, int | None]) -> list[pa.Table | None]:
    schema = pa.schema([pa.field("kind", pa.int8()), *(pa.field(n, t) for n, t in IN_FIELDS)])
    data = [(INSERT, t, k, v, v, v) for t, k, v in rows]
    cols = list(zip(*data, strict=True)) if data else [()] * len(schema)
    return [pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(cols, schema, strict=True)], schema=schema)]


def run(op: OverAggregate, steps: list[tuple[list[tuple[int, str | None, int | None]], int]]) -> list[tuple[Any, ...]]:
    """Per step, a micro-batch's rows then the watermark; the rows emitted, in order."""
    blob = pickle.dumps(op.new_state())
    out: list[tuple[Any, ...]] = []
    for rows, watermark in steps:
        state = pickle.loads(blob)
        changes = op.apply(state, batch(*rows), now_ms=0)
        fired = op.fire(state, watermark, now_ms=0)
        for c in (changes, fired):
            t = c.table(op.out_schema)
            for r in t.to_pylist():
                values = list(r.values())
                assert values[0] == INSERT
                out.append(tuple(values[1:]))
        blob = pickle.dumps(state)
    return out


def test_rows_wait_for_the_watermark_then_come_out_in_time_order():
    op = over(rows=True, preceding=1)
    out = run(op, [([(30, "a", 3), (10, "a", 1)], 0), ([(20, "a", 2)], 25), ([], 100)])
    # nothing before the watermark reaches a row; then 10 and 20 (30 still waits), then 30
    assert out == [("a", 1, 1, 1, 1), ("a", 2, 2, 3, 1), ("a", 3, 2, 5, 2)]


def test_a_range_frame_takes_peers_together_and_drops_rows_out_of_range():
    op = over(rows=False, preceding=10)
    out = run(op, [([(0, "a", 5), (10, "a", 1), (10, "a", 7), (21, "a", 2)], 100)])
    assert out == [("a", 5, 1, 5, 5), ("a", 1, 3, 13, 1), ("a", 7, 3, 13, 1), ("a", 2, 1, 2, 2)]


def test_a_row_at_or_before_its_keys_latest_emitted_time_is_late():
    op = over(rows=False, preceding=None)
    out = run(op, [([(10, "a", 1), (10, "b", 1)], 10), ([(10, "a", 9), (5, "b", 9), (11, "a", 2)], 20)])
    # a: 10 emitted, so a second row at 10 is late; b: 5 is late; 11 joins a's running total
    assert out == [("a", 1, 1, 1, 1), ("b", 1, 1, 1, 1), ("a", 2, 2, 3, 1)]


def test_a_range_key_is_released_once_the_watermark_passes_its_last_row_plus_the_range():
    op = over(rows=False, preceding=10)
    state = op.new_state()
    op.apply(state, batch((5, "a", 1), (7, "b", 1)), now_ms=0)
    op.fire(state, 10, now_ms=0)
    assert op.entries(state) == 2 and op.next_time(state) is None
    op.apply(state, batch((30, "b", 1)), now_ms=0)
    op.fire(state, 16, now_ms=0)  # a: 16 > 5 + 10, released; b: a row waits
    assert op.entries(state) == 1 and op.next_time(state) == 30
    # ROWS and unbounded frames keep their keys (their state grows with the keys)
    rows = over(rows=True, preceding=2)
    state = rows.new_state()
    rows.apply(state, batch((5, "a", 1)), now_ms=0)
    rows.fire(state, 1_000_000, now_ms=0)
    assert rows.entries(state) == 1


def test_a_ttl_forgets_an_idle_key_with_nothing_waiting():
    op = over(rows=False, preceding=None, ttl_ms=1000)
    state = op.new_state()
    op.apply(state, batch((5, "a", 1), (50, "b", 1)), now_ms=0)
    op.fire(state, 10, now_ms=0)
    op.fire(state, 10, now_ms=5000)  # a idle and done: forgotten; b still waits: kept
    assert set(state["parts"]) == {("b",)}
    op.apply(state, batch((20, "a", 4)), now_ms=5000)
    fired = op.fire(state, 60, now_ms=5000)
    assert sorted(fired.rows, key=repr) == [("a", 4, 1, 4, 4), ("b", 1, 1, 1, 1)]  # a: its running total starts again


def test_decimal_sums_keep_their_digits_and_nulls_are_skipped():
    fields = [("k", pa.int64()), ("v", pa.decimal128(10, 2))]
    calls = [AggCallSpec("SUM", typing=Typing("decimal", 20, 2)), AggCallSpec("COUNT", typing=Typing("long"))]
    op = OverAggregate([0], 2, True, None, calls, [pa.decimal128(10, 2)] * 2, out_schema([*fields, ("s", pa.decimal128(20, 2)), ("n", pa.int64())]))
    schema = pa.schema([pa.field("kind", pa.int8()), pa.field("t", pa.int64()), *(pa.field(n, t) for n, t in fields),
                        pa.field("a1", pa.decimal128(10, 2)), pa.field("a2", pa.decimal128(10, 2))])
    vals = [Decimal("0.10"), None, Decimal("0.20")]
    table = pa.Table.from_arrays(
        [pa.array([0, 0, 0], pa.int8()), pa.array([1, 2, 3]), pa.array([1, 1, 1]), *[pa.array(vals, pa.decimal128(10, 2))] * 3],
        schema=schema,
    )
    state = op.new_state()
    op.apply(state, [table], now_ms=0)
    assert op.fire(state, 3, now_ms=0).rows == [
        (1, Decimal("0.10"), Decimal("0.10"), 1), (1, None, Decimal("0.10"), 1), (1, Decimal("0.20"), Decimal("0.30"), 2),
    ]


def test_lag_counts_back_from_the_last_of_tied_rows_and_row_number_numbers_them_one_by_one():
    # Flink 2.3's LagAggFunction and ROW_NUMBER (tests/conformance i07, i08): LAG(v, 1, v * 100)
    # in the window's RANGE frame, where rows of one time are taken together; ROW_NUMBER in a
    # ROWS frame, ties in arrival order; state pickled between micro-batches
    lag = OverAggregate([0], 2, False, None, [AggCallSpec("LAG", args=2, typing=Typing("long"), offset=1)],
                        [pa.int64()], out_schema([("k", pa.string()), ("v", pa.int64()), ("l", pa.int64())]))
    numbered = OverAggregate([0], 2, True, None, [AggCallSpec("ROW_NUMBER", args=0, typing=Typing("long"))],
                             [None], out_schema([("k", pa.string()), ("v", pa.int64()), ("r", pa.int64())]))
    steps = [([(1000, "a", 1), (2000, "a", 2), (2000, "b", 10)], 1500), ([(2000, "a", 3), (3000, "a", 4)], 10_000)]
    outputs = []
    for op in (lag, numbered):
        blob, out = pickle.dumps(op.new_state()), []
        for rows, watermark in steps:
            schema = pa.schema([pa.field("kind", pa.int8()), pa.field("t", pa.int64()), pa.field("k", pa.string()),
                                pa.field("v", pa.int64()), pa.field("a1", pa.int64()), pa.field("a2", pa.int64())])
            data = [(INSERT, t, k, v, v, v * 100) for t, k, v in rows]
            table = pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(zip(*data, strict=True), schema, strict=True)], schema=schema)
            state = pickle.loads(blob)
            op.apply(state, [table.select(list(range(6 if op is lag else 4)))], now_ms=0)
            out += [tuple(r.values())[1:] for r in op.fire(state, watermark, now_ms=0).table(op.out_schema).to_pylist()]
            blob = pickle.dumps(state)
        outputs.append(sorted(out, key=repr))
    # a at 2 s: rows 2 and 3 are peers, both get the value before the last of them (2); the
    # first row of a key its own default (v * 100)
    assert outputs[0] == sorted([("a", 1, 100), ("a", 2, 2), ("a", 3, 2), ("a", 4, 3), ("b", 10, 1000)], key=repr)
    assert outputs[1] == sorted([("a", 1, 1), ("a", 2, 2), ("a", 3, 3), ("a", 4, 4), ("b", 10, 1)], key=repr)


# -- against a model -----------------------------------------------------------------------------


def model(rows: bool, preceding: int | None, arrived: list[tuple[int, str | None, int | None]]) -> list[tuple[Any, ...]]:
    """Each row with its frame's COUNT(*), SUM and MIN, per key, over rows in (time, arrival) order
    (no row late: the test feeds every row before the watermark passes it)."""
    out = []
    for key in {k for _, k, _ in arrived}:
        mine = sorted(((t, i, v) for i, (t, k, v) in enumerate(arrived) if k == key), key=lambda r: (r[0], r[1]))
        for pos, (t, _i, v) in enumerate(mine):
            if rows:
                frame = mine[: pos + 1] if preceding is None else mine[max(0, pos - preceding) : pos + 1]
            else:
                frame = [r for r in mine if r[0] <= t and (preceding is None or r[0] >= t - preceding)]
            vs = [r[2] for r in frame if r[2] is not None]
            out.append((key, v, len(frame), sum(vs) if vs else None, min(vs) if vs else None))
    return out


events = st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["a", "b", None]), st.one_of(st.none(), st.integers(-5, 5))), max_size=30)


@settings(max_examples=150, deadline=None)
@given(events, st.booleans(), st.sampled_from([None, 0, 1, 3, 10]), st.lists(st.integers(1, 8), min_size=1, max_size=6))
def test_every_frame_equals_the_model_across_micro_batches(evs, rows, preceding, cuts):
    # cut the input into micro-batches whose watermark never passes a row still to come (no row
    # is late), the last one at the end of time
    evs = sorted(evs, key=lambda e: e[0])
    steps, i = [], 0
    for c in cuts:
        part, i = evs[i : i + c], i + c
        later = [t for t, _, _ in evs[i:]]
        steps.append((part, (min(later) - 1) if later else 10_000))
    steps.append((evs[i:], 10_000))
    out = run(over(rows, preceding), steps)
    expected = model(rows, preceding, [e for s, _ in steps for e in s])
    assert sorted(out, key=repr) == sorted(expected, key=repr)


def test_distinct_counts_keep_the_frames_values_and_their_multiplicity():
    calls = [AggCallSpec("COUNT", distinct=True, typing=Typing("long")), AggCallSpec("SUM", distinct=True, typing=Typing("long"))]
    fields = [("k", pa.string()), ("v", pa.int64())]
    op = OverAggregate([0], 2, True, 2, calls, [pa.int64()] * 2, out_schema([*fields, ("n", pa.int64()), ("s", pa.int64())]))
    schema = pa.schema([pa.field("kind", pa.int8()), pa.field("t", pa.int64()), *(pa.field(n, t) for n, t in fields),
                        pa.field("a1", pa.int64()), pa.field("a2", pa.int64())])
    vs = [5, 5, 7, 5, None]
    table = pa.Table.from_arrays(
        [pa.array([0] * 5, pa.int8()), pa.array([1, 2, 3, 4, 5]), pa.array(["a"] * 5), *[pa.array(vs, pa.int64())] * 3],
        schema=schema,
    )
    state = op.new_state()
    op.apply(state, [table], now_ms=0)
    # frames (3 rows): [5], [5,5], [5,5,7], [5,7,5], [7,5,None]: distinct values counted once
    assert [r[2:] for r in op.fire(state, 5, now_ms=0).rows] == [(1, 5), (1, 5), (2, 12), (2, 12), (2, 12)]


def _processing(rows: bool, preceding: int | None) -> OverAggregate:
    return OverAggregate([0], 2, rows, preceding, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), None, processing=True)


def _taken(op: OverAggregate, state: Any, rows: list[tuple[str, int]], now_ms: int) -> list[tuple[Any, ...]]:
    """The rows one call emits at once (their time column is ignored: the clock is theirs)."""
    out = op.apply(state, batch(*[(-1, k, v) for k, v in rows]), now_ms=now_ms).table(op.out_schema).to_pylist()
    return [tuple(r.values())[1:] for r in out]


def test_on_processing_time_each_row_comes_out_at_once_in_arrival_order():
    op = _processing(rows=True, preceding=1)
    assert not op.timed and op.clock == "processing"
    state = op.new_state()
    assert _taken(op, state, [("a", 3), ("a", 1)], 1_000) == [("a", 3, 1, 3, 3), ("a", 1, 2, 4, 1)]
    state = pickle.loads(pickle.dumps(state))
    assert _taken(op, state, [("a", 2)], 1_000) == [("a", 2, 2, 3, 1)]  # the same clock: still after the last
    assert op.next_time(state) is None  # nothing waits


def test_on_processing_time_a_range_frame_takes_the_rows_of_one_call_as_peers_and_drops_old_ones():
    op = _processing(rows=False, preceding=100)
    state = op.new_state()
    assert _taken(op, state, [("a", 1), ("a", 2)], 1_000) == [("a", 1, 2, 3, 1), ("a", 2, 2, 3, 1)]
    assert _taken(op, state, [("a", 4)], 1_050) == [("a", 4, 3, 7, 1)]
    assert _taken(op, state, [("a", 8)], 1_200) == [("a", 8, 1, 8, 8)]  # 1,000 and 1,050 are out of range
