"""OVER aggregation on event time (Flink's RowTime*PrecedingFunction family), as a changelog
operator: each row comes out once, with its aggregates over its frame, when the watermark passes
its time. Ordered by processing time (Flink's ProcTime* functions), each row comes out as soon as
it is taken, its time the clock's then.

Input: the row kind (always +I: the planner refuses an updating input), the row's time in epoch
milliseconds (NULL: the row is dropped, it has no place in the order), the input row, then per
aggregate call its argument columns.

State layout, per partition key (``planner.analysis.state``: the rows waiting for the watermark
and the frame): ``pending`` (time -> the rows at that time, in arrival order), ``last`` (the
latest time emitted), the accumulators of the frame, and the frame's rows for a bounded frame
(ROWS: the last n rows' arguments; RANGE: (time, arguments) of the rows within the range of
``last``). An unbounded frame keeps only its accumulators. A RANGE frame's key is released once
the watermark is past its last row plus the range and nothing waits; the state TTL releases an
idle key with nothing waiting, as Flink's cleanup timer does.

Emission (Flink's): rows wait until the watermark reaches their time, then are taken in time
order. A ROWS frame takes rows of the same time in arrival order, each with the n rows before it;
a RANGE frame takes all rows of one time together (they are peers: each gets the aggregate over
all of them and the rows within the range before). A row at or before the latest time already
emitted for its key is late and dropped (Flink's bounded frames compare with that time; its
unbounded frames with the watermark, which drops more: see docs/semantics.md).
"""

from __future__ import annotations

import decimal
import heapq
from collections import deque
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.aggregate import AggCallSpec, accumulator
from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import DECIMAL_CONTEXT, Row, columns, thawed


class OverAggregate(Operator):
    name = "over aggregation"
    timed = True

    def __init__(
        self,
        keys: Sequence[int],
        n_fields: int,
        rows: bool,
        preceding: int | None,
        calls: Sequence[AggCallSpec],
        arg_types: Sequence[pa.DataType | None],
        out_schema: pa.Schema,
        ttl_ms: int | None = None,
        processing: bool = False,
    ) -> None:
        """``keys``: the partition key's positions in the input row of ``n_fields`` columns;
        ``rows``: a ROWS frame (else RANGE); ``preceding``: rows or milliseconds, None for
        UNBOUNDED; ``processing``: ordered by processing time (rows come out as they come)."""
        super().__init__(out_schema, ttl_ms)
        if processing:
            self.timed, self.clock = False, "processing"
        self.keys, self.n_fields = tuple(keys), n_fields
        self.rows, self.preceding = rows, preceding
        self.calls, self.arg_types = tuple(calls), tuple(arg_types)

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)

    def _accumulators(self) -> list[Accumulator]:
        accs = getattr(self, "_accs", None)
        if accs is None:
            # a bounded frame takes rows back out: MIN/MAX keep every value of the frame
            retracting = self.preceding is not None
            accs = [accumulator(c, t, retracting, over=True) for c, t in zip(self.calls, self.arg_types, strict=True)]
            self._accs = accs
        return accs

    def new_state(self) -> Any:
        # waiting: the keys with rows that wait (a fire visits only them); releases: a heap of
        # (time the watermark must pass, sequence, key) of RANGE keys with nothing waiting
        return {"parts": {}, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None, "waiting": {}, "releases": [], "seq": 0}

    def entries(self, state: Any) -> int:
        return len(state["parts"])

    def _new_part(self) -> dict[str, Any]:
        accs = self._accumulators()
        return {"pending": {}, "last": None, "accs": [a.new() for a in accs], "frame": deque()}

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        """Hold the batch's rows until the watermark passes them (``fire`` emits them)."""
        batch = inputs[0]
        assert batch is not None
        parts: dict[Any, dict[str, Any]] = state["parts"]
        expiry: Expiry | None = state["ttl"]
        cols = columns(batch, 1)
        times, fields = cols[0], cols[1 : 1 + self.n_fields]
        args = cols[1 + self.n_fields :]
        rows: list[Row] = list(zip(*fields, strict=True))
        arg_rows: list[Row] = list(zip(*args, strict=True)) if args else [()] * len(rows)
        processing = self.clock == "processing"
        latest = now_ms
        for ts, row, a in zip(times, rows, arg_rows, strict=True):
            if ts is None and not processing:
                continue
            key = tuple(row[i] for i in self.keys)
            part = parts.get(key)
            if part is not None and expiry is not None and not part["pending"] and not expiry.alive(key, now_ms):
                del parts[key]  # idle longer than the TTL with nothing waiting: gone
                part = None
            if part is None:
                part = parts[key] = self._new_part()
            if processing:
                # the row's time is when it is taken: the rows a call brings to one partition come
                # at the same millisecond (peers in a RANGE frame), later than any emitted before
                ts = now_ms if part["last"] is None else max(now_ms, part["last"] + 1)
                latest = max(latest, ts)
            elif part["last"] is not None and ts <= part["last"]:
                continue  # late: its key has emitted this time or a later one
            part["pending"].setdefault(ts, []).append((row, a))
            state["waiting"][key] = None  # a dict: keys fire in the order their rows came
            if expiry is not None:
                expiry.touch(key, now_ms)
        if processing:  # on processing time nothing waits: each row comes out as it comes
            return self.fire(state, latest, now_ms)
        return Changes()

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Emit every held row the watermark has passed, in time order per key."""
        out = Changes()
        parts: dict[Any, dict[str, Any]] = state["parts"]
        waiting: dict[Any, None] = state["waiting"]
        releases: list[Any] = state["releases"]
        accs = self._accumulators()
        with decimal.localcontext(DECIMAL_CONTEXT):
            for key in list(waiting):
                part = parts[key]
                pending: dict[int, list[Any]] = part["pending"]
                ready = sorted(t for t in pending if t <= watermark_ms)
                for ts in ready:
                    self._emit(part, ts, pending.pop(ts), accs, out)
                    part["last"] = ts
                if not pending:
                    del waiting[key]
                    if ready and not self.rows and self.preceding is not None:
                        state["seq"] += 1
                        heapq.heappush(releases, (part["last"] + self.preceding, state["seq"], key))
        # a RANGE key leaves once the watermark is past its last row plus the range (and no row
        # came for it since)
        while releases and releases[0][0] < watermark_ms:
            deadline, _, key = heapq.heappop(releases)
            held = parts.get(key)
            if held is not None and not held["pending"] and held["last"] + self.preceding == deadline:
                del parts[key]
                if state["ttl"] is not None:
                    state["ttl"].forget(key)
        if state["ttl"] is not None:
            for key in state["ttl"].expire(now_ms):
                if key in waiting:
                    state["ttl"].touch(key, now_ms)  # rows still wait for the watermark: kept
                else:
                    parts.pop(key, None)
        return out

    def next_time(self, state: Any) -> int | None:
        """The earliest time a held row waits for (the bucket's timer), or None."""
        parts = state["parts"]
        times = [min(parts[k]["pending"]) for k in state["waiting"]]
        return min(times) if times else None

    def _emit(self, part: dict[str, Any], ts: int, batch: list[Any], accs: list[Accumulator], out: Changes) -> None:
        values, frame = part["accs"], part["frame"]
        n = len(accs)
        if self.rows:
            for row, a in batch:
                # the row leaving the frame is taken back before the new one is added, in Flink's
                # order (a Welford variance's floating steps depend on it)
                if self.preceding is not None:
                    if len(frame) == self.preceding + 1:
                        self._add(values, accs, frame.popleft(), -1)
                    frame.append(a)
                self._add(values, accs, a, 1)
                out.emit(INSERT, (*thawed(row), *(accs[j].value(values[j]) for j in range(n))))
            return
        if self.preceding is not None:
            while frame and frame[0][0] < ts - self.preceding:
                self._add(values, accs, frame.popleft()[1], -1)
        for _row, a in batch:
            self._add(values, accs, a, 1)
            if self.preceding is not None:
                frame.append((ts, a))
        result = tuple(accs[j].value(values[j]) for j in range(n))
        for row, _a in batch:
            out.emit(INSERT, (*thawed(row), *result))

    def _add(self, values: list[Any], accs: list[Accumulator], args: Row, sign: int) -> None:
        pos = 0
        for j, (acc, call) in enumerate(zip(accs, self.calls, strict=True)):
            values[j] = acc.update(values[j], args[pos : pos + call.args], sign)
            pos += call.args

