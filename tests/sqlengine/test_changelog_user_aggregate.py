"""Python aggregate functions in the changelog aggregations, no Spark: the group aggregation calls
``accumulate`` for each row added and ``retract`` for each row taken back, and its result after
any sequence of changes is the function over the rows the group holds (a model computes it
directly); on event time the window aggregation emits each window once the watermark reaches its
last instant and drops the rows of a window already emitted; a method that raises, or a result
of the wrong type, fails with one line naming the call and the row; in batch mode a global
aggregation over no input has one row, as Flink's batch aggregation gives."""

from __future__ import annotations

import pickle
from collections import Counter

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.aggregate import AggCallSpec, GroupAggregate
from sqlengine.changelog.kinds import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.operator import Operator
from sqlengine.changelog.values import Typing
from sqlengine.changelog.window_aggregate import TUMBLE, WindowAggregate
from sqlengine.errors import USER_FUNCTIONS, describe
from sqlengine.translate.changelog import whole_bucket
from tests.conformance.udfs.conformance_aggs import Spread, WeightedAvg
from tests.sqlengine.test_changelog_operators import apply_changelog, out_schema, run


class Raises(WeightedAvg):
    def accumulate(self, acc, value: int | None, weight: int | None) -> None:
        if value == 13:
            raise ValueError("unlucky")
        super().accumulate(acc, value, weight)


class Wrong(Spread):
    def get_value(self, acc):  # type: ignore[no-untyped-def]
        return "wide"


DOUBLE = pa.float64()


def spec(cls: type, result: pa.DataType = DOUBLE, args: int = 2, filtered: bool = False) -> AggCallSpec:
    return AggCallSpec("USER_DEFINED", args=args, filtered=filtered, typing=Typing.of(result), function=cls,
                       label="sqlengine_udf_agg_42", name=cls.__name__.lower(), result=result)


def group_op(updating: bool, cls: type = WeightedAvg) -> GroupAggregate:
    calls = [spec(cls), AggCallSpec("COUNT", star=True, args=0, typing=Typing("long"))]
    return GroupAggregate(1, calls, [pa.int64(), None], updating, out_schema([("k", pa.string()), ("a", pa.float64()), ("n", pa.int64())]))


def changes(rows: list[tuple[int, str, int | None, int | None]]) -> pa.Table:
    kinds, keys, values, weights = zip(*rows, strict=True) if rows else ((), (), (), ())
    return pa.table({"kind": pa.array(kinds, pa.int8()), "k": pa.array(keys, pa.string()),
                     "v": pa.array(values, pa.int64()), "w": pa.array(weights, pa.int64())})


def model(held: Counter) -> dict[str, tuple[float | None, int]]:
    out: dict[str, tuple[float | None, int]] = {}
    for k in {k for k, _, _ in held}:
        rows = [(v, w) for (kk, v, w), n in held.items() for _ in range(n) if kk == k]
        counted = [(v, w) for v, w in rows if v is not None and w is not None]
        weight = sum(w for _, w in counted)
        out[k] = (sum(v * w for v, w in counted) / weight if weight else None, len(rows))
    return out


row = st.tuples(st.sampled_from("abc"), st.one_of(st.none(), st.integers(-5, 9)), st.one_of(st.none(), st.integers(1, 4)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.tuples(st.booleans(), row), max_size=8), max_size=6))
def test_a_group_holds_the_function_of_its_rows_after_any_changes(steps) -> None:
    """Each step's rows are added (+I) or, where one is held, taken back (-D); the emitted
    changelog ends in the model's table after every micro-batch."""
    op = group_op(updating=True)
    held: Counter = Counter()
    batches = []
    for step in steps:
        rows = []
        for add, r in step:
            if add or held[r] == 0:
                held[r] += 1
                rows.append((INSERT, *r))
            else:
                held[r] -= 1
                rows.append((DELETE, *r))
        held = +held
        batches.append([changes(rows)])
    table = apply_changelog(run(op, batches))
    assert {k: (a, n) for (k, a, n) in table} == model(held)
    assert all(c == 1 for c in table.values())


def test_retract_is_called_for_an_update_and_the_group_leaves_with_its_last_row() -> None:
    out = run(group_op(updating=True), [
        [changes([(INSERT, "a", 2, 1), (INSERT, "a", 4, 3)])],
        [changes([(UPDATE_BEFORE, "a", 4, 3), (UPDATE_AFTER, "a", 8, 1)])],
        [changes([(DELETE, "a", 2, 1), (DELETE, "a", 8, 1)])],
    ])
    assert out == [("+I", ("a", 3.5, 2)), ("-U", ("a", 3.5, 2)), ("+U", ("a", 5.0, 2)), ("-D", ("a", 5.0, 2))]


@pytest.fixture
def called_at(monkeypatch):
    """The call's name in the job, mapped to its position (sqlengine.translate.udfs.register)."""
    monkeypatch.setitem(USER_FUNCTIONS, "sqlengine_udf_agg_42", ("job.sql:3:11", "agg"))


def test_a_method_that_raises_fails_with_the_call_and_the_row(called_at) -> None:
    with pytest.raises(RuntimeError) as err:
        run(group_op(updating=False, cls=Raises), [[changes([(INSERT, "a", 1, 1), (INSERT, "a", 13, None)])]])
    assert describe(err.value) == "job.sql:3:11: raises(13, NULL) raised ValueError: unlucky"


def test_a_result_of_another_type_fails_with_the_value(called_at) -> None:
    op = GroupAggregate(0, [spec(Wrong, pa.int64(), args=1)], [pa.int64()], False, out_schema([("s", pa.int64())]))
    with pytest.raises(RuntimeError) as err:
        run(op, [[pa.table({"kind": pa.array([INSERT], pa.int8()), "v": pa.array([1], pa.int64())})]])
    assert describe(err.value) == "job.sql:3:11: wrong returned 'wide' (str), not a int64"


def test_batch_mode_gives_a_global_aggregation_over_no_input_its_initial_values() -> None:
    op = GroupAggregate(0, [spec(WeightedAvg), AggCallSpec("COUNT", star=True, args=0, typing=Typing("long"))], [pa.int64(), None],
                        False, out_schema([("a", pa.float64()), ("n", pa.int64())]))
    marker = pa.table({"b": pa.array([0], pa.int32()), "kind": pa.array([None], pa.int8()),
                       "v": pa.array([None], pa.int64()), "w": pa.array([None], pa.int64())})
    assert whole_bucket(op)(marker).to_pylist() == [{"kind": INSERT, "a": None, "n": 0}]
    some = pa.concat_tables([marker, marker.set_column(1, "kind", pa.array([INSERT], pa.int8()))
                             .set_column(2, "v", pa.array([3], pa.int64())).set_column(3, "w", pa.array([2], pa.int64()))])
    assert whole_bucket(op)(some).to_pylist() == [{"kind": INSERT, "a": 3.0, "n": 1}]


# -- on event time ------------------------------------------------------------------------------

WINDOW_OUT = [("k", pa.string()), ("ws", pa.timestamp("us")), ("we", pa.timestamp("us")), ("wt", pa.timestamp("us")),
              ("a", pa.float64()), ("s", pa.int64())]


def window_op() -> WindowAggregate:
    calls = [spec(WeightedAvg), spec(Spread, pa.int64(), args=1)]
    return WindowAggregate(TUMBLE, 1000, 1000, 0, 1, calls, [pa.int64(), pa.int64()], out_schema(WINDOW_OUT), False, True)


def timed(rows: list[tuple[str, int | None, int, int]]) -> pa.Table:
    """(key, time in ms, value, weight) rows; Spread reads the value again."""
    keys, times, values, weights = zip(*rows, strict=True)
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "k": pa.array(keys, pa.string()),
                     "t": pa.array(times, pa.int64()), "v": pa.array(values, pa.int64()), "w": pa.array(weights, pa.int64()),
                     "v2": pa.array(values, pa.int64())})


def step(op: Operator, state: object, rows: pa.Table | None, watermark: int) -> list[tuple]:
    """One micro-batch as the processor runs it: the watermark set, the rows applied, then fired."""
    op.watermark_ms = watermark
    out = op.apply(state, [rows], 0) if rows is not None else None
    fired = op.fire(state, watermark, 0)
    return [*(out.rows if out else []), *fired.rows]


def test_an_event_time_window_comes_out_when_the_watermark_reaches_its_last_instant() -> None:
    op = window_op()
    state = pickle.loads(pickle.dumps(op.new_state()))
    # a row without a time is in no window
    assert step(op, state, timed([("a", 100, 2, 1), ("a", 900, 4, 3), ("a", 1200, 5, 1), ("a", None, 7, 7)]), 0) == []
    assert op.next_time(state) == 999
    assert step(op, state, None, 998) == []
    [(k, ws, we, wt, a, s)] = step(op, state, None, 999)
    assert (k, ws, we, wt, a, s) == ("a", 0, 1_000_000, 999_000, 3.5, 2)  # micros: start, end, end - 1 ms
    # a row of the window just emitted is late: dropped; the open window takes its own
    assert step(op, state, timed([("a", 500, 9, 9), ("a", 1500, 1, 1)]), 999) == []
    [(_, ws, _, _, a, s)] = step(op, state, None, 5000)
    assert (ws, a, s) == (1_000_000, 3.0, 4)
    assert op.entries(state) == 0
