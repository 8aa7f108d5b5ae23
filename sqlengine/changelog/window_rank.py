"""Window Top-N and window deduplication on processing time (Flink's WindowRank and
WindowDeduplicate after a processing-time window table function), as a changelog operator: each
window's rows per partition key are ranked, and its first N come out once, when the wall clock
reaches the window's end (Spark ranks a window's rows only when a watermark closes it, and a
watermark moves only with data; the event-time forms run on Spark's own operators). Also on
event time after a MATCH_RECOGNIZE, windowed by its MATCH_ROWTIME(), or an OVER (Spark's operators cannot read
a changelog operator's rows): each window comes out when the watermark passes its end.

Input: the row kind (always +I: a window TVF's rows), the row's window start and end in epoch
milliseconds, then the input row. Rows are ranked by the ORDER BY keys (NULLs first ascending,
last descending, as Flink), ties in arrival order; a deduplication keeping the last row ranks the
latest arrival first among rows of one time (the rows of a micro-batch share their processing
time).

State layout (``planner.analysis.state``: the rows kept per window and key): ``windows``, (window
end, window start, partition key) -> the best N rows so far as [sort key, arrival, row] (the input
is insert-only, so a row out of the first N never comes back); released when emitted. The bucket
has one processing-time timer, at its earliest window's end; a bounded job closes windows as later
input comes and drops those still open at its end, as the window aggregation on processing time.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import INSERT
from sqlengine.changelog.operator import Changes, Operator
from sqlengine.changelog.values import Row, columns, order_key, thawed
from sqlengine.changelog.wall_clock import closes


class WindowRank(Operator):
    name = "processing-time window ranking"
    clock: str | None = "processing"

    def __init__(
        self,
        keys: Sequence[int],
        order: Sequence[tuple[int, bool]],
        types: Sequence[pa.DataType],
        n: int,
        latest_first: bool,
        rank_at: int | None,
        out_schema: pa.Schema,
        zone: str | None = None,
        event_time: bool = False,
    ) -> None:
        """``keys``: the partition key's positions in the input row (of ``types``); ``order``: the
        ORDER BY keys (position, descending); ``latest_first``: ties go to the latest arrival
        (a deduplication keeping the last row); ``rank_at``: where the row number goes in the
        output row (None: not selected); ``zone``: the window bounds are the zone's wall times
        (a window on a TIMESTAMP_LTZ in 'table.local-time-zone'); ``event_time``: windows close
        on the watermark (a window on a MATCH_RECOGNIZE's MATCH_ROWTIME() or an OVER's time, whose rows come as the
        watermark passes them: none is late), else on the wall clock."""
        super().__init__(out_schema, None)
        self.zone = zone
        self.event_time = event_time
        if event_time:
            self.timed, self.clock, self.name = True, None, "window ranking"
        self.keys, self.order, self.types = tuple(keys), tuple(order), tuple(types)
        self.n, self.latest_first, self.rank_at = n, latest_first, rank_at

    def new_state(self) -> Any:
        return {"windows": {}, "seq": 0}

    def entries(self, state: Any) -> int:
        return sum(len(rows) for rows in state["windows"].values())

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        windows: dict[tuple[int, int, Any], list[list[Any]]] = state["windows"]
        sort_key = order_key(self.order, self.types)
        cols = columns(batch, 1)
        starts, ends, fields = cols[0], cols[1], cols[2 : 2 + len(self.types)]  # (then the watermark's column)
        sign = -1 if self.latest_first else 1
        for start, end, row in zip(starts, ends, zip(*fields, strict=True), strict=True):
            if start is None:
                continue  # no time, no window
            state["seq"] += 1
            kept = windows.setdefault((end, start, tuple(row[i] for i in self.keys)), [])
            entry = [sort_key(row), sign * state["seq"], row]
            at = bisect.bisect_right(kept, (entry[0], entry[1]), key=lambda e: (e[0], e[1]))
            if at < self.n:
                kept.insert(at, entry)
                del kept[self.n :]
        return Changes()

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """Emit and release every window whose end the wall clock (``watermark_ms``) has reached,
        in the order of their ends."""
        windows: dict[tuple[int, int, Any], list[list[Any]]] = state["windows"]
        out = Changes()
        for w in sorted(w for w in windows if closes(w[0], self.zone, self.event_time) <= watermark_ms):
            for rank, (_, _, row) in enumerate(windows.pop(w), start=1):
                out.emit(INSERT, self._out(row, rank))
        return out

    def _out(self, row: Row, rank: int) -> Row:
        values = thawed(row)
        if self.rank_at is None:
            return values
        return (*values[: self.rank_at], rank, *values[self.rank_at :])

    def next_time(self, state: Any) -> int | None:
        end = min((w[0] for w in state["windows"]), default=None)
        return closes(end, self.zone, self.event_time) if end is not None else None
