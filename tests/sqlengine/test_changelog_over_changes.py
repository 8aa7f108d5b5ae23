"""The OVER aggregation over changes on its own (plain Python over Arrow): after every micro-batch
of inserts and retractions, its changelog applied is the OVER of the input as it stands, computed
by a plain model of each frame (ROWS n and UNBOUNDED, RANGE n and UNBOUNDED; ORDER BY ascending,
descending, NULLs first, ties in arrival order); checked on random input with the state pickled
between calls, as Spark keeps it. And Nexmark q6's shape: an average over the last rows of a
seller, whose rows a Top-1 updates."""

from __future__ import annotations

import pickle
from collections import Counter
from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.aggregate import AggCallSpec
from sqlengine.changelog.kinds import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.over_changes import OverChanges
from sqlengine.changelog.values import Typing
from tests.sqlengine.test_changelog_operators import out_schema

# the input row: partition key, order value, a value; per call its arguments
FIELDS = [("k", pa.string()), ("o", pa.int64()), ("v", pa.int64())]
CALLS = [
    AggCallSpec("COUNT", star=True, args=0, typing=Typing("long")),
    AggCallSpec("SUM", typing=Typing("long")),
    AggCallSpec("MIN", typing=Typing("long")),
]
OUT = [*FIELDS, ("n", pa.int64()), ("s", pa.int64()), ("lo", pa.int64())]


def operator(rows: bool, preceding: int | None, desc: bool = False) -> OverChanges:
    types = [t for _, t in FIELDS]
    return OverChanges([0], 3, [(1, desc)], types, rows, preceding, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT))


def batch(changes: list[tuple[int, tuple[str, int | None, int | None]]], ranged: bool) -> list[pa.Table | None]:
    schema = pa.schema([("kind", pa.int8()), ("r", pa.int64()), *FIELDS, ("a1", pa.int64()), ("a2", pa.int64())])
    data = [(kind, o if ranged else None, k, o, v, v, v) for kind, (k, o, v) in changes]
    cols = list(zip(*data, strict=True)) if data else [()] * len(schema)
    return [pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(cols, schema, strict=True)], schema=schema)]


def apply(table: Counter, changes: list[tuple[int, tuple[Any, ...]]]) -> None:
    for kind, row in changes:
        if kind in (INSERT, UPDATE_AFTER):
            table[row] += 1
        else:
            assert table[row] > 0, f"{row} taken back but not held"
            table[row] -= 1
            if not table[row]:
                del table[row]


def model(live: list[tuple[int, tuple[str, int | None, int | None]]], rows: bool, preceding: int | None, desc: bool) -> Counter:
    """The OVER of the rows held (arrival number, row), per partition, frame by frame."""
    out: Counter = Counter()
    for key in {r[0] for _, r in live}:
        def order(e: tuple[int, tuple[str, int | None, int | None]]) -> tuple[Any, ...]:
            o = e[1][1]  # NULLs first ascending, last descending; ties in arrival order
            if desc:
                return ((1,) if o is None else (0, -o)), e[0]
            return ((0,) if o is None else (1, o)), e[0]

        part = sorted((e for e in live if e[1][0] == key), key=order)
        for i, (_, row) in enumerate(part):
            if rows:
                frame = part[: i + 1] if preceding is None else part[max(0, i - preceding) : i + 1]
            else:
                o = row[1]
                peers_end = max(j for j, (_, r) in enumerate(part) if r[1] == o)
                frame = [e for e in part[: peers_end + 1] if preceding is None or (o is None and e[1][1] is None)
                         or (o is not None and e[1][1] is not None and e[1][1] >= o - preceding)]
            values = [e[1][2] for e in frame if e[1][2] is not None]
            out[(*row, len(frame), sum(values) if values else None, min(values) if values else None)] += 1
    return out


def run(op: OverChanges, steps: list[list[tuple[int, tuple[str, int | None, int | None]]]], ranged: bool) -> list[Counter]:
    blob = pickle.dumps(op.new_state())
    table: Counter = Counter()
    tables = []
    for changes in steps:
        state = pickle.loads(blob)
        got = op.apply(state, batch(changes, ranged), 0)
        apply(table, list(zip(got.kinds, got.rows, strict=True)))
        blob = pickle.dumps(state)
        tables.append(Counter(table))
    return tables


ROW = st.tuples(st.sampled_from(["a", "b"]), st.one_of(st.none(), st.integers(0, 6)), st.one_of(st.none(), st.integers(-5, 9)))


@settings(max_examples=150, deadline=None)
@given(
    steps=st.lists(st.lists(st.tuples(st.booleans(), ROW, st.integers(0, 50)), max_size=6), min_size=1, max_size=6),
    frame=st.sampled_from([(True, None), (True, 0), (True, 2), (False, None), (False, 0), (False, 3)]),
    desc=st.booleans(),
)
def test_the_changelog_applied_is_the_over_of_the_input_as_it_stands(steps, frame, desc) -> None:
    rows, preceding = frame
    desc = desc and (rows or preceding is None)  # a RANGE with a size is ascending (the planner asks so)
    live: list[tuple[int, tuple[str, int | None, int | None]]] = []
    seq = 0
    batches = []
    expected = []
    for step in steps:
        changes = []
        for insert, row, pick in step:
            if insert or not live:
                seq += 1
                live.append((seq, row))
                changes.append((INSERT, row))
            else:
                # a retraction of a held row: the operator takes back the latest-arrived equal one
                target = live[pick % len(live)][1]
                latest = max(i for i, (_, r) in enumerate(live) if r == target)
                live.pop(latest)
                changes.append((DELETE, target))
        batches.append(changes)
        expected.append(model(live, rows, preceding, desc))
    assert run(operator(rows, preceding, desc), batches, ranged=not rows) == expected


def test_q6s_shape_an_average_over_the_last_rows_whose_rows_a_top_1_updates() -> None:
    """Each seller's last 2 closing prices (ROWS 1 PRECEDING, ordered by time): the Top-1 below
    raises auction 1's price (-U/+U), and the seller's rows after it change with it."""
    op = operator(True, 1)
    first = [(INSERT, ("s", 10, 100)), (INSERT, ("s", 20, 200)), (INSERT, ("s", 30, 300))]
    state = op.new_state()
    got = op.apply(state, batch(first, False), 0)
    assert list(zip(got.kinds, got.rows, strict=True)) == [
        (INSERT, ("s", 10, 100, 1, 100, 100)), (INSERT, ("s", 20, 200, 2, 300, 100)), (INSERT, ("s", 30, 300, 2, 500, 200)),
    ]
    update = [(UPDATE_BEFORE, ("s", 10, 100)), (UPDATE_AFTER, ("s", 10, 150))]
    got = op.apply(state, batch(update, False), 0)
    assert list(zip(got.kinds, got.rows, strict=True)) == [
        (DELETE, ("s", 10, 100, 1, 100, 100)),
        (UPDATE_BEFORE, ("s", 20, 200, 2, 300, 100)), (UPDATE_AFTER, ("s", 20, 200, 1, 200, 200)),
        (INSERT, ("s", 10, 150, 1, 150, 150)),
        (UPDATE_BEFORE, ("s", 20, 200, 1, 200, 200)), (UPDATE_AFTER, ("s", 20, 200, 2, 350, 150)),
    ]
    assert op.entries(state) == 1


def test_a_partition_idle_longer_than_the_state_ttl_is_forgotten_without_retractions() -> None:
    types = [t for _, t in FIELDS]
    op = OverChanges([0], 3, [(1, False)], types, True, None, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), ttl_ms=1000)
    state = op.new_state()
    first = op.apply(state, batch([(INSERT, ("a", 1, 5))], False), 0)
    assert first.rows == [("a", 1, 5, 1, 5, 5)]
    op.apply(state, batch([(INSERT, ("b", 1, 7))], False), 600)
    state = pickle.loads(pickle.dumps(state))
    assert op.entries(state) == 2
    # at 1.2 s, a's partition (last written at 0) is gone: nothing retracted, its next row alone
    late = op.apply(state, batch([(INSERT, ("a", 2, 3))], False), 1200)
    assert list(zip(late.kinds, late.rows, strict=True)) == [(INSERT, ("a", 2, 3, 1, 3, 3))]
    # a retraction of a row of the forgotten partition finds nothing; b, written at 0.6 s, goes at 1.6 s
    assert not op.apply(state, batch([(DELETE, ("a", 1, 5))], False), 1300)
    op.apply(state, batch([], False), 1700)
    assert op.entries(state) == 1 and set(state["parts"]) == {("a",)}
