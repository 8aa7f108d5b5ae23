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
key -> [time, row, matched] in reading order. The bucket has one processing-time timer, at its
earliest row's release; a bounded job releases (and pads) as its input comes, and what is held
when its input ends is dropped (Flink does not fire processing-time timers after its input ends).
"""

from __future__ import annotations

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
        return {"sides": ({}, {})}

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
                sides[side].setdefault(jk, []).append(entry)
        return out

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Release the rows the clock (``watermark_ms``) has passed the last chance of; an outer
        side's unmatched ones come out padded."""
        out = Changes()
        for side, held in enumerate(state["sides"]):
            padded = self._padded(side)
            for jk in list(held):
                rows = held[jk]
                kept = []
                for entry in rows:
                    if self._kept_until(side, entry[0]) < watermark_ms:
                        if padded and entry[2] == 0:
                            out.emit(INSERT, thawed(self._joined(side, entry[1], None)))
                    else:
                        kept.append(entry)
                if kept:
                    held[jk] = kept
                else:
                    del held[jk]
        return out

    def next_time(self, state: Any) -> int | None:
        times = [self._kept_until(side, e[0]) + 1 for side, held in enumerate(state["sides"]) for rows in held.values() for e in rows]
        return min(times, default=None)
