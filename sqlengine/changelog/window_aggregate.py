"""Window aggregation as a changelog operator (TUMBLE, HOP and CUMULATE): where Spark's own
window aggregation cannot run it.

- **On processing time** (Flink's processing-time windows): a row falls into the windows of its
  processing time (the start of the micro-batch that read it: Spark's current_timestamp()), and
  each window's aggregates come out once, when the wall clock reaches its end. Spark closes its
  own windows only when an event-time watermark passes them, and a watermark moves only with
  data. This operator runs with Spark's processing-time timers instead
  (``transformWithStateInPandas`` in ProcessingTime mode, one timer per bucket at its earliest
  open window's end): Spark runs a micro-batch every trigger interval to fire them, input or not,
  so a window closes on time on an idle source too, as Flink's does. A batch's rows share one
  processing time, and batches' times only grow, so no row comes for a window already emitted.
  A bounded job has no timers (Spark would run batches for them forever): its windows close as
  later input reaches the operator, and the windows still open when the input ends are dropped,
  as Flink drops them (it does not fire processing-time timers once its input has ended).
- **On event time**, when an aggregate call is a Python aggregate function (Spark's aggregation
  cannot call one): a row falls into the windows of its event time, a window is emitted when the
  watermark reaches its last instant (end - 1 ms, as Flink fires it), with window_time = end -
  1 ms; a row whose window the watermark has already reached is late and dropped from it, as
  Flink drops it (event-time timers, one per bucket at its earliest open window's last instant).

On a TIMESTAMP_LTZ in 'table.local-time-zone' (``zone``) the times and bounds are the zone's
wall times (Flink's windows there are the wall clock's, sessions included): a window closes at the
instant of its end, the second instant of a wall time the autumn repeats on event time
(sqlengine.changelog.wall_clock).

Input: the row kind (always +I: the planner refuses an updating input), the group key columns,
the row's window (after a window TVF, which made a row per window: its start and end in epoch
milliseconds) or its time (a GROUP BY TUMBLE(ts, ..): the operator assigns the windows), then per
aggregate call its argument columns and, with a FILTER clause, the filter's value.

A processing-time SESSION (``slide_ms`` is the gap): a key's session starts at its first row and
ends a gap after its last; a row within the gap of the key's open session extends it, any other
starts a new one. Rows come in processing-time order, so sessions never merge.

An event-time SESSION (Flink's merging session windows): a row makes the window [t, t + gap),
which merges with every open session of its key it touches (Flink's TimeWindow.intersects: ends
included), so one late-arriving row can join two sessions; their accumulators are merged (a
Python aggregate function's ``merge``: without one the job fails there, as Flink's does). A
session the watermark has closed takes no row (it is emitted in the same step); a row is late
when it touches no open session and its own window's last instant is at or before the watermark.

State layout (``planner.analysis.state``: one accumulator per open window and key): ``windows``,
(window end, window start, key) -> the accumulators; for sessions also ``sessions``, key -> its
open session's (end, start) (on processing time), or ``open``, key -> its open sessions' (start,
end) (on event time). A window is released when it is emitted.
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from planner.time_zone import fixed_offset_ms
from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.aggregate import AggCallSpec, accumulator, call_columns
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import Changes, Operator
from sqlengine.changelog.values import DECIMAL_CONTEXT, columns, thaw
from sqlengine.changelog.wall_clock import closes, last_instant, window_time

TUMBLE, HOP, CUMULATE, SESSION = "TUMBLE", "HOP", "CUMULATE", "SESSION"


def windows_at(kind: str, t: int, size: int, slide: int, offset: int) -> list[tuple[int, int]]:
    """The (start, end) windows in epoch milliseconds holding the instant ``t``: ``slide`` is
    HOP's slide or CUMULATE's step (TUMBLE: the size)."""
    if kind == TUMBLE:
        start = t - (t - offset) % size
        return [(start, start + size)]
    if kind == HOP:
        last = t - (t - offset) % slide  # the latest window start at or before t
        return [(s, s + size) for s in range(last, t - size, -slide)][::-1]
    start = t - (t - offset) % size  # CUMULATE: every window of the max-size window that ends after t
    first = (t - start) // slide + 1
    return [(start, start + k * slide) for k in range(first, size // slide + 1)]


class WindowAggregate(Operator):
    name = "window aggregation"

    def __init__(
        self,
        kind: str,
        size_ms: int,
        slide_ms: int,
        offset_ms: int,
        n_keys: int,
        calls: Sequence[AggCallSpec],
        arg_types: Sequence[pa.DataType | None],
        out_schema: pa.Schema,
        given: bool = False,
        event_time: bool = False,
        zone: str | None = None,
        chained: bool = False,
    ) -> None:
        """``out_schema``: the kind, the keys, window start, end and time, then the aggregates;
        ``given``: each row carries its window's start and end (else its time to assign);
        ``event_time``: windows close on the watermark (else on the wall clock); ``zone``: the
        times and bounds are the zone's wall times (a window on a TIMESTAMP_LTZ in
        'table.local-time-zone'), and a window closes at the instant of its end there; ``chained``:
        the rows come from an event-time operator that emits each one as the watermark passes it
        (a MATCH_RECOGNIZE's, windowed by MATCH_ROWTIME(), or an OVER's), before Flink would pass the watermark
        on: none is late."""
        super().__init__(out_schema, None)
        self.event_time = event_time
        self.zone = zone
        self.chained = chained
        if event_time:
            self.timed = True
        else:
            self.clock = "processing"
            self.name = "processing-time window aggregation"
        self.kind, self.size_ms, self.slide_ms, self.offset_ms = kind, size_ms, slide_ms, offset_ms
        self.n_keys = n_keys
        self.given = given
        self.calls = tuple(calls)
        self.arg_types = tuple(arg_types)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_accs"}  # made again where it runs

    @property
    def accs(self) -> list[Accumulator]:
        accs = self.__dict__.get("_accs")
        if accs is None:
            accs = self.__dict__["_accs"] = [accumulator(c, t, False) for c, t in zip(self.calls, self.arg_types, strict=True)]
        return accs

    def new_state(self) -> Any:
        return {"windows": {}, "sessions": {}, "open": {}} if self.merging else {"windows": {}, "sessions": {}}

    def entries(self, state: Any) -> int:
        return len(state["windows"])

    @property
    def merging(self) -> bool:
        """Event-time sessions: a row may bridge two, which then merge. So may processing-time
        sessions on the wall clock of a zone with daylight saving time, where the times of rows
        read later can go back (the autumn's repeated hour)."""
        return self.kind == SESSION and (self.event_time or (self.zone is not None and fixed_offset_ms(self.zone) is None))

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        windows: dict[tuple[int, int, Any], list[Any]] = state["windows"]
        cols = columns(batch, 0)
        n = len(cols[0])
        keys: list[Any] = list(zip(*cols[1 : 1 + self.n_keys], strict=True)) if self.n_keys else [()] * n
        pos = 1 + self.n_keys
        # a row without a time is in no window (Spark's window() gives it none)
        if self.given:
            spans = [[(s, e)] if s is not None else [] for s, e in zip(cols[pos], cols[pos + 1], strict=True)]
            pos += 2
        elif self.merging:  # row by row: a row may merge the sessions earlier rows went into
            arg_cols, filters = call_columns(self.calls, cols, pos + 1)
            with decimal.localcontext(DECIMAL_CONTEXT):
                for i, t in enumerate(cols[pos]):
                    for start, end in self._merged_session(state, keys[i], t) if t is not None else ():
                        self._add(windows, (end, start, keys[i]), arg_cols, filters, i)
            return Changes()
        elif self.kind == SESSION:
            spans = [self._session(state, keys[i], t) if t is not None else [] for i, t in enumerate(cols[pos])]
            pos += 1
        else:
            spans = [windows_at(self.kind, t, self.size_ms, self.slide_ms, self.offset_ms) if t is not None else [] for t in cols[pos]]
            pos += 1
        arg_cols, filters = call_columns(self.calls, cols, pos)
        # event time: a window the watermark has reached was emitted (or is now): its rows are late
        closed = self.watermark_ms if self.event_time and not self.chained else None
        with decimal.localcontext(DECIMAL_CONTEXT):
            for i in range(n):
                for start, end in spans[i]:
                    if closed is not None and self._last(end) <= closed:
                        continue
                    self._add(windows, (end, start, keys[i]), arg_cols, filters, i)
        return Changes()

    def _add(self, windows: dict[tuple[int, int, Any], list[Any]], window: tuple[int, int, Any],
             arg_cols: list[list[list[Any]]], filters: list[list[Any] | None], i: int) -> None:
        """Row ``i`` into the accumulators of ``window`` (end, start, key)."""
        accs = self.accs
        slot = windows.get(window)
        if slot is None:
            slot = windows[window] = [a.new() for a in accs]
        for j, acc in enumerate(accs):
            f = filters[j]
            if f is not None and f[i] is not True:
                continue
            slot[j] = acc.update(slot[j], [c[i] for c in arg_cols[j]], 1)

    def _session(self, state: Any, key: Any, t: int) -> list[tuple[int, int]]:
        """The session the row at ``t`` belongs to: the key's open one, extended to ``t`` + the
        gap (its accumulators moved to the new end), or a new one."""
        windows, sessions = state["windows"], state.setdefault("sessions", {})  # (a state saved before sessions ran)
        gap = self.slide_ms
        open_ = sessions.get(key)
        if open_ is None or t >= open_[0]:
            sessions[key] = (t + gap, t)
            return [(t, t + gap)]
        end, start = open_
        if t + gap > end:
            windows[(t + gap, start, key)] = windows.pop((end, start, key))
            end = t + gap
            sessions[key] = (end, start)
        return [(start, end)]

    def _merged_session(self, state: Any, key: Any, t: int) -> list[tuple[int, int]]:
        """The session of the row at ``t``: its window [t, t + gap) merged with every open session
        of the key it touches (their accumulators merged into one), or none if it is late."""
        windows, open_ = state["windows"], state.setdefault("open", {})
        gap, closed = self.slide_ms, Operator.watermark_ms if self.chained else self.watermark_ms
        sessions = open_.get(key, [])
        # a session whose last instant the watermark has reached is closed: emitted in this step
        touched = [(s, e) for s, e in sessions if s <= t + gap and e >= t and self._last(e) > closed]
        if not touched and self._last(t + gap) <= closed:
            return []  # late: its own session has closed, and it joins no open one
        start, end = min([t, *(s for s, _ in touched)]), max([t + gap, *(e for _, e in touched)])
        slot = None
        for s, e in sorted(touched):
            other = windows.pop((e, s, key))
            slot = other if slot is None else [a.merge(x, y) for a, x, y in zip(self.accs, slot, other, strict=True)]
        if slot is not None:
            windows[(end, start, key)] = slot
        open_[key] = [w for w in sessions if w not in touched] + [(start, end)]
        return [(start, end)]

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Emit and release every window the clock has reached, in the order of their ends: on
        processing time the wall clock (``watermark_ms``, the clock the processor passes) at its
        end; on event time the watermark at its last instant (end - 1 ms)."""
        windows: dict[tuple[int, int, Any], list[Any]] = state["windows"]
        out = Changes()
        sessions = state.get("sessions", {})
        for w in sorted((w for w in windows if self._closes(w[0]) <= watermark_ms), key=lambda w: (w[0], w[1])):
            end, start, key = w
            slot = windows.pop(w)
            if sessions.get(key) == (end, start):
                del sessions[key]
            if self.merging:
                left = [x for x in state["open"].get(key, []) if x != (start, end)]
                if left:
                    state["open"][key] = left
                else:
                    state["open"].pop(key, None)
            values = (acc.value(v) for acc, v in zip(self.accs, slot, strict=True))
            # window_time: an event-time window's last instant; a processing-time window's is the
            # time it is emitted (Flink 2.3 gives the clock at emission, a few ms after the end:
            # checked with PyFlink)
            time_ms = window_time(end, self.zone) if self.event_time else now_ms
            out.emit(INSERT, (*(thaw(k) for k in key), start * 1000, end * 1000, time_ms * 1000, *values))
        return out

    def next_time(self, state: Any) -> int | None:
        end = min((w[0] for w in state["windows"]), default=None)
        return self._closes(end) if end is not None else None

    def _last(self, end: int) -> int:
        return last_instant(end, self.zone)

    def _closes(self, end: int) -> int:
        return closes(end, self.zone, self.event_time)
