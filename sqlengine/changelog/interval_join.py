"""An interval join as a changelog operator (Flink's ProcTimeIntervalJoin and RowTimeIntervalJoin):
``l.t BETWEEN r.t + lower AND r.t + upper``, where both times are when the rows were read
(processing time) or both are event times that reach it after a MATCH_RECOGNIZE (its
MATCH_ROWTIME()) or an OVER on event time (on plain streams Spark's own stream-stream join runs
an event-time one).

A row can be matched by a row of the other side that comes later only while that row's time can
still fall in its bound: a left row at t by right rows until t - lower, a right row at t by left
rows until t + upper. The clock says when that has passed: processing time only grows, and on
event time no row behind the watermark is to come. Each side keeps its rows that long (per join
key), and a new row joins the held rows of the other side its bound admits (and the rest of the
condition, ``residual``). Rows of one micro-batch are taken left ones first, then the right ones,
so a pair that comes together is joined once.

On event time a micro-batch's watermark is applied after its rows: a MATCH_RECOGNIZE (or an
OVER) emits a row once the watermark passes its time, and the rows it emits in the batch whose watermark
passed them must still meet the other side's (as in Flink, where the match is emitted before the
watermark moves on). A row behind the watermark is joined with the held rows and released in the
same step (Flink joins a late row with its cache and keeps it not). Event times come in any order
within the watermark delay, so each key's rows are kept sorted by time.

Output: +I only (Flink's is append-only too): each match once; for an outer side, a row that
leaves the operator without a match comes out padded with NULLs, when the clock passes its time
(Flink pads it when its cleanup timer fires).

State layout (``planner.analysis.state``: each side's rows within the interval): per side, join
key -> [time, row, matched] in time order (for processing time, reading order), so a key
releases rows from its front; and a heap of (release time, seq, side, key) with an entry
for each key's front row, so that releasing and the next timer look at the keys due and nothing
else (an entry whose key's front has changed since is stale and skipped). The bucket has one
timer, at its earliest row's release. On processing time a bounded job releases (and pads) as
its input comes, and what is held when its input ends is dropped (Flink does not fire
processing-time timers after its input ends); on event time the watermark at the end of the
input releases (and pads) everything.
"""

from __future__ import annotations

import heapq
from bisect import insort
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import Changes, Operator
from sqlengine.changelog.values import Row, columns, thawed

Predicate = Callable[[Row], Any]


class IntervalJoin(Operator):
    name = "interval join"
    inputs = 2

    def __init__(
        self,
        kind: str,
        keys: tuple[Sequence[int], Sequence[int]],
        widths: tuple[int, int],
        lower_ms: int,
        upper_ms: int,
        out_schema: pa.Schema,
        residual: Predicate | None = None,
        event_time: bool = False,
    ) -> None:
        """``kind``: INNER, LEFT, RIGHT or FULL; ``keys``: each side's join key positions in its
        row of ``widths`` columns; the bound: left time BETWEEN right time + ``lower_ms`` AND
        right time + ``upper_ms``; ``event_time``: the times are event times (the watermark
        releases rows), else processing times (the wall clock does)."""
        super().__init__(out_schema, None)
        self.event_time = event_time
        if event_time:
            self.timed = True
        else:
            self.clock = "processing"
        self.kind = kind
        self.keys = (tuple(keys[0]), tuple(keys[1]))
        self.widths = widths
        self.lower_ms, self.upper_ms = lower_ms, upper_ms
        self.residual = residual

    def new_state(self) -> Any:
        return {"sides": ({}, {}), "due": [], "seq": 0}

    def _due(self, state: Any) -> list[tuple[int, int, int, Any]]:
        """The heap of keys by their front row's release (rebuilt for a state kept before it was)."""
        if "due" not in state:
            state["due"], state["seq"] = [], 0
            for side, held in enumerate(state["sides"]):
                for jk, rows in held.items():
                    self._push(state, side, jk, rows[0][0])
        due: list[tuple[int, int, int, Any]] = state["due"]
        return due

    def _push(self, state: Any, side: int, jk: Any, t: int) -> None:
        state["seq"] += 1
        heapq.heappush(state["due"], (self._kept_until(side, t), state["seq"], side, jk))

    def entries(self, state: Any) -> int:
        return sum(len(rows) for side in state["sides"] for rows in side.values())

    def _padded(self, side: int) -> bool:
        return self.kind == "FULL" or (self.kind == "LEFT" and side == 0) or (self.kind == "RIGHT" and side == 1)

    def _kept_until(self, side: int, t: int) -> int:
        """The last time a row of ``side`` read at ``t`` can meet a row of the other side."""
        return t - self.lower_ms if side == 0 else t + self.upper_ms

    def _joined(self, side: int, row: Row, other: Row | None) -> Row:
        pad = (None,) * self.widths[1 - side] if other is None else other
        return (*row, *pad) if side == 0 else (*pad, *row)

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        sides: tuple[dict[Any, list[list[Any]]], dict[Any, list[list[Any]]]] = state["sides"]
        self._due(state)
        out = Changes()
        for side, batch in enumerate(inputs):
            if batch is None:
                continue
            cols = columns(batch, 1)
            for t, row in zip(cols[0], zip(*cols[1:], strict=True), strict=True):
                if t is None:
                    continue  # no time: no interval
                jk = tuple(row[i] for i in self.keys[side])
                entry = [t, row, 0]
                if None not in jk:  # a NULL key matches nothing
                    for other in sides[1 - side].get(jk, ()):
                        lt, rt = (t, other[0]) if side == 0 else (other[0], t)
                        if not rt + self.lower_ms <= lt <= rt + self.upper_ms:
                            continue
                        joined = self._joined(side, row, other[1])
                        if self.residual is not None and self.residual(joined) is not True:
                            continue
                        out.emit(INSERT, thawed(joined))
                        entry[2] += 1
                        other[2] += 1
                rows = sides[side].get(jk)
                if rows is None:  # a new front row: due at its release
                    sides[side][jk] = [entry]
                    self._push(state, side, jk, t)
                elif t >= rows[-1][0]:
                    rows.append(entry)
                else:  # event time out of order: in its place (after rows of the same time)
                    insort(rows, entry, key=_time)
                    if rows[0] is entry:  # the new front: due earlier (the old entry is stale)
                        self._push(state, side, jk, t)
        return out

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Release the rows the clock (the watermark, or the wall clock) has passed the last chance of; an outer
        side's unmatched ones come out padded. Only the keys due are looked at."""
        out = Changes()
        due = self._due(state)
        while due and due[0][0] < watermark_ms:
            at, _, side, jk = heapq.heappop(due)
            rows = state["sides"][side].get(jk)
            if rows is None or self._kept_until(side, rows[0][0]) != at:
                continue  # stale: the key's front has been released since
            padded = self._padded(side)
            n = 0
            while n < len(rows) and self._kept_until(side, rows[n][0]) < watermark_ms:
                if padded and rows[n][2] == 0:
                    out.emit(INSERT, thawed(self._joined(side, rows[n][1], None)))
                n += 1
            del rows[:n]
            if rows:
                self._push(state, side, jk, rows[0][0])
            else:
                del state["sides"][side][jk]
        return out

    def next_time(self, state: Any) -> int | None:
        due = self._due(state)
        while due:  # the earliest entry that is not stale
            at, _, side, jk = due[0]
            rows = state["sides"][side].get(jk)
            if rows is not None and self._kept_until(side, rows[0][0]) == at:
                return at + 1
            heapq.heappop(due)
        return None


def _time(entry: list[Any]) -> int:
    t: int = entry[0]
    return t
