"""The window aggregation operator on its own, on processing time (plain Python over Arrow; on
event time: test_changelog_user_aggregate.py): each row falls into the windows of its processing
time (TUMBLE, HOP, CUMULATE, as Flink assigns them), or after a window TVF into the one window it
carries, and each window comes out once, with its aggregates, when the clock reaches its end, in
the order of the windows' ends; a window emitted is released. The window assignment is checked against a brute-force model of each kind."""

from __future__ import annotations

import datetime as dt
import pickle

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.time_zone import wall_ms
from sqlengine.changelog.aggregate import AggCallSpec
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.values import Typing
from sqlengine.changelog.window_aggregate import CUMULATE, HOP, SESSION, TUMBLE, WindowAggregate, windows_at
from tests.sqlengine.test_changelog_operators import out_schema

# input: kind, key, the row's time (or its window's start and end), then the arguments: COUNT(*)
# has none, SUM(v) and MAX(v) one each, the last with a FILTER column
OUT = [("k", pa.string()), ("ws", pa.timestamp("us", tz="UTC")), ("we", pa.timestamp("us", tz="UTC")),
       ("wt", pa.timestamp("us", tz="UTC")), ("n", pa.int64()), ("s", pa.int64()), ("hi", pa.int64())]
CALLS = [
    AggCallSpec("COUNT", star=True, args=0, typing=Typing("long")),
    AggCallSpec("SUM", typing=Typing("long")),
    AggCallSpec("MAX", filtered=True, typing=Typing("long")),
]


def op(kind: str = TUMBLE, size: int = 1000, slide: int = 1000, given: bool = False) -> WindowAggregate:
    return WindowAggregate(kind, size, slide, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), given)


def batch(rows: list[tuple[str, int, bool]], at: int | tuple[int, int]) -> pa.Table:
    """The rows (key, value, filter) of one micro-batch read at processing time ``at`` (or, after
    a window TVF, all in the window ``at``)."""
    keys, values, keep = zip(*rows, strict=True) if rows else ((), (), ())
    times = {"t": pa.array([at] * len(rows), pa.int64())} if isinstance(at, int) else {
        "ws": pa.array([at[0]] * len(rows), pa.int64()), "we": pa.array([at[1]] * len(rows), pa.int64())}
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "k": pa.array(keys, pa.string()), **times,
                     "a1": pa.array(values, pa.int64()), "a2": pa.array(values, pa.int64()), "f": pa.array(keep, pa.bool_())})


def ms(micros: int) -> int:
    return micros // 1000


@pytest.mark.parametrize("kind", [TUMBLE, HOP, CUMULATE])
@given(t=st.integers(0, 10**7), size_steps=st.integers(1, 6), step=st.sampled_from([250, 1000, 1500]))
def test_windows_are_those_holding_the_instant_as_flink_assigns_them(kind: str, t: int, size_steps: int, step: int) -> None:
    size = step * size_steps if kind != TUMBLE else step
    got = windows_at(kind, t, size, step, 0)
    if kind == TUMBLE:
        want = [(s, s + size) for s in range(0, t + 1, size) if s <= t < s + size]
    elif kind == HOP:  # every slide-aligned window of the size that holds t
        want = [(s, s + size) for s in range(-size - size % step, t + 1, step) if s <= t < s + size]
    else:  # CUMULATE: the windows of t's max-size window, [S, S + k*step), that hold t
        s0 = t - t % size
        want = [(s0, s0 + k * step) for k in range(1, size // step + 1) if t < s0 + k * step]
    assert got == want


def test_a_window_comes_out_once_at_its_end_with_its_rows_aggregates_and_is_released() -> None:
    o = op()
    state = o.new_state()
    assert not o.apply(state, [batch([("a", 1, True), ("b", 5, True)], 10_200)], now_ms=10_300)
    assert not o.apply(state, [batch([("a", 7, False)], 10_900)], now_ms=11_300)  # counted by its time, not the clock
    assert not o.apply(state, [batch([("a", 2, True)], 11_100)], now_ms=11_400)  # the next window
    assert o.next_time(state) == 11_000 and o.entries(state) == 3
    state = pickle.loads(pickle.dumps(state))  # as Spark's state store keeps it between batches
    assert not o.fire(state, 10_999, 10_999)  # the clock has not reached the end yet
    out = o.fire(state, 11_000, 11_004)
    assert out.kinds == [INSERT, INSERT]
    rows = sorted(out.rows)  # window_time: when it is emitted, as in Flink
    assert rows == [("a", 10_000_000, 11_000_000, 11_004_000, 2, 8, 1), ("b", 10_000_000, 11_000_000, 11_004_000, 1, 5, 5)]
    assert o.entries(state) == 1 and o.next_time(state) == 12_000  # the emitted windows are gone
    assert not o.fire(state, 11_500, 11_500)
    assert [r[0] for r in o.fire(state, 12_000, 12_000).rows] == ["a"]
    assert o.entries(state) == 0 and o.next_time(state) is None


def test_hopping_windows_each_hold_the_row_and_come_out_in_the_order_of_their_ends() -> None:
    o = op(HOP, size=3000, slide=1000)
    state = o.new_state()
    o.apply(state, [batch([("a", 1, True)], 5_500)], now_ms=5_600)
    out = o.fire(state, 10_000, 10_000)
    assert [(ms(r[1]), ms(r[2]), r[4]) for r in out.rows] == [(3_000, 6_000, 1), (4_000, 7_000, 1), (5_000, 8_000, 1)]


def test_cumulating_windows_share_their_start_and_grow_by_the_step() -> None:
    o = op(CUMULATE, size=3000, slide=1000)
    state = o.new_state()
    o.apply(state, [batch([("a", 1, True)], 3_200)], now_ms=3_300)
    o.apply(state, [batch([("a", 10, True)], 4_700)], now_ms=4_800)
    out = o.fire(state, 6_000, 6_000)
    assert [(ms(r[1]), ms(r[2]), r[4], r[5]) for r in out.rows] == [(3_000, 4_000, 1, 1), (3_000, 5_000, 2, 11), (3_000, 6_000, 2, 11)]


def test_the_operator_pickles_without_its_accumulators() -> None:
    o = op()
    o.apply(o.new_state(), [batch([("a", 1, True)], 1)], now_ms=1)  # makes them
    again = pickle.loads(pickle.dumps(o))
    assert "_accs" not in again.__dict__ and again.accs


def test_after_a_window_tvf_each_row_counts_once_in_the_window_it_carries() -> None:
    """A HOP TVF made a row per window already: the operator must not assign it to the others."""
    o = op(HOP, size=3000, slide=1000, given=True)
    state = o.new_state()
    for start in (3_000, 4_000, 5_000):  # the TVF's three copies of one row read at 5.5 s
        o.apply(state, [batch([("a", 1, True)], (start, start + 3000))], now_ms=5_600)
    out = o.fire(state, 10_000, 10_000)
    assert [(ms(r[1]), ms(r[2]), r[4]) for r in out.rows] == [(3_000, 6_000, 1), (4_000, 7_000, 1), (5_000, 8_000, 1)]


def test_a_session_grows_while_rows_come_within_the_gap_and_closes_a_gap_after_the_last() -> None:
    """A processing-time SESSION (gap 1 s) per key: rows within the gap of the key's session
    extend it, across micro-batches too; a row after it has closed starts a new one."""
    o = op(SESSION, size=0, slide=1000)
    state = o.new_state()
    o.apply(state, [batch([("a", 1, True), ("b", 4, True)], 1_000)], now_ms=1_000)
    state = pickle.loads(pickle.dumps(state))
    o.apply(state, [batch([("a", 2, True)], 1_800)], now_ms=1_800)  # a's session now ends at 2.8 s
    assert o.entries(state) == 2 and o.next_time(state) == 2_000
    out = o.fire(state, 2_000, 2_001)
    assert [(r[0], ms(r[1]), ms(r[2]), r[4], r[5]) for r in out.rows] == [("b", 1_000, 2_000, 1, 4)]
    assert not o.fire(state, 2_799, 2_799)
    o.apply(state, [batch([("a", 3, False)], 2_700)], now_ms=2_700)  # still within: ends at 3.7 s
    out = o.fire(state, 3_700, 3_702)
    assert [(r[0], ms(r[1]), ms(r[2]), r[4], r[5], r[6]) for r in out.rows] == [("a", 1_000, 3_700, 3, 6, 2)]
    assert o.entries(state) == 0 and state["sessions"] == {}
    o.apply(state, [batch([("a", 5, True)], 4_000)], now_ms=4_000)  # a new session
    assert [(ms(r[1]), ms(r[2]), r[4]) for r in o.fire(state, 9_000, 9_000).rows] == [(4_000, 5_000, 1)]


def _timed(rows: list[tuple[str, int, int]]) -> pa.Table:
    """Rows (key, event time in ms, value) of one micro-batch, all through the FILTER."""
    keys, times, values = zip(*rows, strict=True)
    return pa.table({"kind": pa.array([INSERT] * len(rows), pa.int8()), "k": pa.array(keys, pa.string()),
                     "t": pa.array(times, pa.int64()), "a1": pa.array(values, pa.int64()), "a2": pa.array(values, pa.int64()),
                     "f": pa.array([True] * len(rows), pa.bool_())})


def test_event_time_sessions_merge_when_a_row_bridges_them_and_a_late_row_alone_is_dropped() -> None:
    """An event-time SESSION (gap 1 s; Flink's merging windows, checked against Flink by the
    conformance query l05_udaf_session): each row's window [t, t + gap) merges with every open
    session of its key it touches, ends included, their accumulators merged; a session comes out
    once the watermark reaches its last instant; a row that touches no open session and whose own
    window the watermark has passed is late."""
    o = WindowAggregate(SESSION, 0, 1000, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), event_time=True)
    state = o.new_state()
    o.apply(state, [_timed([("a", 1_000, 1), ("a", 3_500, 2), ("b", 1_200, 7)])], now_ms=0)
    assert o.entries(state) == 3 and o.next_time(state) == 1_999
    state = pickle.loads(pickle.dumps(state))
    o.watermark_ms = 1_500  # the processor's watermark for the next batch
    # a row at 2 s touches a's [1, 2) at its end (to [1, 3)); one at 2.6 s reaches 3.6 s and
    # bridges [1, 3) and [3.5, 4.5) into one session
    o.apply(state, [_timed([("a", 2_000, 3), ("a", 2_600, 4), ("b", 100, 9)])], now_ms=0)
    assert state["open"][("a",)] == [(1_000, 4_500)] and o.entries(state) == 2
    out = o.fire(state, 2_199, 0)  # b's [1.2, 2.2) has its last instant at 2.199 s; b's row at 0.1 s was late
    assert [(r[0], ms(r[1]), ms(r[2]), ms(r[3]), r[4], r[5]) for r in out.rows] == [("b", 1_200, 2_200, 2_199, 1, 7)]
    out = o.fire(state, 10_000, 0)
    assert [(r[0], ms(r[1]), ms(r[2]), r[4], r[5], r[6]) for r in out.rows] == [("a", 1_000, 4_500, 4, 10, 4)]
    assert o.entries(state) == 0 and state["open"] == {}


def test_a_session_the_watermark_has_closed_takes_no_row_and_a_python_aggregate_without_merge_fails_to_merge() -> None:
    """A session closed by the watermark but not yet emitted (Spark hands a batch's rows to the
    operator before its timers fire) is Flink's emitted window: a row touching it starts a session
    of its own. Two sessions that a row bridges merge their accumulators: a Python aggregate
    function without ``merge`` fails the job there, as Flink's does."""
    o = WindowAggregate(SESSION, 0, 10_000, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), event_time=True)
    state = o.new_state()
    o.apply(state, [_timed([("a", 0, 1), ("a", 20_000, 2)])], now_ms=0)
    o.watermark_ms = 12_000  # [0, 10) is closed
    o.apply(state, [_timed([("a", 5_000, 3)])], now_ms=0)  # [5, 15) does not join it
    assert sorted(state["open"][("a",)]) == [(0, 10_000), (5_000, 15_000), (20_000, 30_000)]
    out = o.fire(state, 12_000, 0)
    assert [(ms(r[1]), ms(r[2]), r[4], r[5]) for r in out.rows] == [(0, 10_000, 1, 1)]

    class NoMerge:
        def create_accumulator(self):
            return [0]

        def accumulate(self, acc, v):
            acc[0] += v or 0

        def get_value(self, acc):
            return acc[0]

    udaf = AggCallSpec("USER_DEFINED", typing=Typing("long"), function=NoMerge, label="f.sql:1:8", name="total", result=pa.int64())
    o = WindowAggregate(SESSION, 0, 10_000, 0, 1, [udaf], [pa.int64()],
                        out_schema([*OUT[:4], ("t", pa.int64())]), event_time=True)
    state = o.new_state()
    table = _timed([("a", 0, 1), ("a", 20_000, 2), ("a", 10_000, 4)]).select(["kind", "k", "t", "a1"])
    with pytest.raises(RuntimeError, match=r"f.sql:1:8: two sessions merged and total has no merge\(acc, accs\) method"):
        o.apply(state, [table], now_ms=0)


def test_in_batch_mode_every_window_comes_out_at_the_end_of_the_input() -> None:
    """Batch mode runs a bucket's rows through the operator at once: on processing time too, the
    clock then stands past every window (a Python aggregate function's window in batch mode)."""
    from sqlengine.translate.changelog import whole_bucket

    rows = batch([("a", 1, True), ("a", 2, True)], 1_500)
    table = rows.add_column(0, "b", pa.array([0] * rows.num_rows, pa.int32()))
    out = whole_bucket(op())(table).to_pylist()
    assert [(r["k"], ms(r["ws"].timestamp() * 1_000_000), r["n"], r["s"]) for r in out] == [("a", 1_000, 2, 3)]


def _utc_ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC).timestamp() * 1000)


def test_on_a_zones_wall_clock_the_repeated_hour_is_one_window_closed_at_its_second_instant() -> None:
    """A window on a TIMESTAMP_LTZ in America/Los_Angeles, as Flink 2.3 runs it (conformance
    z08/z09): rows come with their wall times; on 7 November 2021 the wall hour 01:00-02:00
    happens twice (PDT, then PST), so the window holds both instant hours' rows. It closes when
    the watermark reaches the second instant of 01:59:59.999 (09:59:59.999 UTC), and its
    window_time is the first (08:59:59.999 UTC); then a row for it is late."""
    zone = "America/Los_Angeles"
    o = WindowAggregate(TUMBLE, 3_600_000, 3_600_000, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT),
                        event_time=True, zone=zone)
    state = o.new_state()
    first, second = wall_ms(_utc_ms("2021-11-07 08:20"), zone), wall_ms(_utc_ms("2021-11-07 09:10"), zone)
    assert second < first  # 01:10 PST is 50 minutes after 01:20 PDT, and 10 minutes before it on the wall
    o.apply(state, [_timed([("a", first, 1), ("a", second, 2)])], now_ms=0)
    assert o.entries(state) == 1 and o.next_time(state) == _utc_ms("2021-11-07 09:59:59.999")
    assert not o.fire(state, _utc_ms("2021-11-07 08:59:59.999"), 0)  # the first 01:59:59.999 is not the end
    out = o.fire(state, _utc_ms("2021-11-07 09:59:59.999"), 0)
    hour = wall_ms(_utc_ms("2021-11-07 08:00"), zone)
    assert [(r[0], ms(r[1]), ms(r[2]), ms(r[3]), r[4], r[5]) for r in out.rows] == [
        ("a", hour, hour + 3_600_000, _utc_ms("2021-11-07 08:59:59.999"), 2, 3)]
    o.watermark_ms = _utc_ms("2021-11-07 09:59:59.999")
    o.apply(state, [_timed([("a", second + 1, 5)])], now_ms=0)  # its window has closed: late
    assert o.entries(state) == 0


def test_on_a_zones_wall_clock_a_processing_time_window_closes_at_the_instant_of_its_end() -> None:
    """Processing time in Asia/Kolkata (UTC+05:30): the windows are the zone's wall hours; the
    one from 10:00 to 11:00 there closes when the clock reaches 05:30 UTC, not 11:00 UTC."""
    zone = "Asia/Kolkata"
    o = WindowAggregate(TUMBLE, 3_600_000, 3_600_000, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), zone=zone)
    state = o.new_state()
    now = _utc_ms("2024-01-01 04:45")  # 10:15 there
    o.apply(state, [batch([("a", 1, True)], wall_ms(now, zone))], now_ms=now)
    assert o.next_time(state) == _utc_ms("2024-01-01 05:30")
    assert not o.fire(state, _utc_ms("2024-01-01 05:29:59.999"), 0)
    out = o.fire(state, _utc_ms("2024-01-01 05:30"), _utc_ms("2024-01-01 05:30:00.004"))
    ten = wall_ms(_utc_ms("2024-01-01 04:30"), zone)
    assert [(ms(r[1]), ms(r[2]), ms(r[3]), r[4]) for r in out.rows] == [(ten, ten + 3_600_000, _utc_ms("2024-01-01 05:30:00.004"), 1)]


def test_rows_from_an_event_time_operator_before_it_are_never_late() -> None:
    """After a MATCH_RECOGNIZE (a window on MATCH_ROWTIME()), a row comes out of the match when
    the watermark passes it, in the same micro-batch as the window sees that watermark: Flink
    passes the watermark on after the row, so the row is in its window. Read from a source, the
    same row would be late."""
    rows = [("a", 4_500, 1), ("a", 4_900, 2)]
    for chained, want in ((True, [("a", 4_000, 5_000, 2, 3)]), (False, [])):
        o = WindowAggregate(TUMBLE, 1_000, 1_000, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT),
                            event_time=True, chained=chained)
        state = o.new_state()
        o.watermark_ms = 5_000
        o.apply(state, [_timed(rows)], now_ms=0)
        out = o.fire(state, 5_000, 0)
        assert [(r[0], ms(r[1]), ms(r[2]), r[4], r[5]) for r in out.rows] == want


def test_processing_time_sessions_on_a_wall_clock_that_goes_back_stay_apart() -> None:
    """Processing time in Los Angeles on 7 November 2021: a row read at 01:58 PDT, then one read
    at 01:00 PST (two minutes later): on the wall clock the second is an hour before the first,
    so with a 10-minute gap they are two sessions, [01:58, 02:08) and [01:00, 01:10)."""
    zone = "America/Los_Angeles"
    o = WindowAggregate(SESSION, 0, 600_000, 0, 1, CALLS, [None, pa.int64(), pa.int64()], out_schema(OUT), zone=zone)
    state = o.new_state()
    for at in ("2021-11-07 08:58", "2021-11-07 09:00"):
        now = _utc_ms(at)
        o.apply(state, [batch([("a", 1, True)], wall_ms(now, zone))], now_ms=now)
    out = o.fire(state, _utc_ms("2021-11-07 12:00"), _utc_ms("2021-11-07 12:00"))
    one = wall_ms(_utc_ms("2021-11-07 09:00"), zone)
    assert sorted((ms(r[1]) - one, ms(r[2]) - one, r[4]) for r in out.rows) == [(0, 600_000, 1), (58 * 60_000, 68 * 60_000, 1)]
