"""An interval join on processing time (Flink's ProcTimeIntervalJoin), as a changelog operator:
``l.pt BETWEEN r.pt + lower AND r.pt + upper`` where both times are when the rows were read.

Processing time only grows, so a row can still be matched by a row of the other side read later
only for a while: a left row read at t by right rows read until t - lower, a right row read at t
by left rows read until t + upper. Each side keeps its rows that long (per join key), and a new
row joins the held rows of the other side its bound admits (and the rest of the condition,
``residual``). Rows read in one micro-batch share their processing time: the left ones are taken
first, then the right ones, so a pair read together is joined once.

Output: +I only (Flink's is append-only too): each match once; for an outer side, a row that
leaves the operator without a match comes out padded with NULLs, when the clock passes its time
(Flink pads it when its cleanup timer fires).

State layout (``planner.analysis.state``: each side's rows within the interval): per side, join
key -> [time, row, matched] in reading order, which is time order (processing time only grows),
so a key releases rows from its front; and a heap of (release time, seq, side, key) with an entry
for each key's front row, so that releasing and the next timer look at the keys due and nothing
else (an entry whose key's front has changed since is stale and skipped). The bucket has one
processing-time timer, at its earliest row's release; a bounded job releases (and pads) as its
input comes, and what is held when its input ends is dropped (Flink does not fire
processing-time timers after its input ends).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import Changes, Operator
from sqlengine.changelog.values import Row, columns, thawed

Predicate = Callable[[Row], Any]


class ProcTimeIntervalJoin(Operator):
    name = "processing-time interval join"
    inputs = 2
    clock = "processing"

    def __init__(
        self,
        kind: str,
        keys: tuple[Sequence[int], Sequence[int]],
        widths: tuple[int, int],
        lower_ms: int,
        upper_ms: int,
        out_schema: pa.Schema,
        residual: Predicate | None = None,
    ) -> None:
        """``kind``: INNER, LEFT, RIGHT or FULL; ``keys``: each side's join key positions in its
        row of ``widths`` columns; the bound: left time BETWEEN right time + ``lower_ms`` AND
        right time + ``upper_ms``."""
        super().__init__(out_schema, None)
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
                else:
                    rows.append(entry)
        return out

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Release the rows the clock (``watermark_ms``) has passed the last chance of; an outer
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
