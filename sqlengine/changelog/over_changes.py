"""OVER aggregation over changes, as a changelog operator: an OVER whose input updates (a Top-N, an
aggregation or a join over updates below it; Nexmark q6 as its authors meant it) or whose ORDER BY
is not one time attribute. Nothing waits for a watermark: each change is applied at once, and every
row whose frame it changes is updated; the result is always the OVER of the input as it stands
(what batch mode computes over the final input). Flink 2.3 runs the second kind (an insert-only
input ordered by another column) with retractions too; it cannot run the first at all.

Input: the row kind, the order value for a RANGE frame with a size (epoch milliseconds of a time,
or the number; NULL otherwise), the input row, then per aggregate call its argument columns.

State, per partition key (``planner.analysis.state``: every row its input holds): the rows in
order (by the ORDER BY keys, NULLs first ascending, then arrival), each with its arguments and the
aggregates last emitted for it. A row leaves when its input retracts it (an equal row: the
latest of them); a partition with no row left is gone, and so is one not written for the state
TTL ('table.exec.state.ttl'), without retracting what it emitted.

Output: +I for a new row with its aggregates; -U/+U for a row whose aggregates changed (a row
came or went in its frame); -D for a retracted row, with the aggregates it had. A ROWS frame of n
rows changes the next n rows at most; an UNBOUNDED frame every row after the change (one pass);
a RANGE frame the rows within the range after it, and the change's peers.
"""

from __future__ import annotations

import bisect
import decimal
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.aggregate import AggCallSpec, accumulator
from sqlengine.changelog.kinds import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE, adds
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import DECIMAL_CONTEXT, Row, columns, order_key, thawed

# an entry: [sort key, arrival, row, arguments, range value, aggregates emitted (None: not yet)]
KEY, SEQ, ROW, ARGS, VALUE, OUT = range(6)


class OverChanges(Operator):
    name = "over aggregation over changes"

    def __init__(
        self,
        keys: Sequence[int],
        n_fields: int,
        order: Sequence[tuple[int, bool]],
        types: Sequence[pa.DataType],
        rows: bool,
        preceding: int | float | None,
        calls: Sequence[AggCallSpec],
        arg_types: Sequence[pa.DataType | None],
        out_schema: pa.Schema,
        ttl_ms: int | None = None,
    ) -> None:
        """``keys``: the partition key's positions in the input row of ``n_fields`` columns;
        ``order``: the ORDER BY keys (position, descending) over the input's ``types``; ``rows``:
        a ROWS frame (else RANGE); ``preceding``: rows, or the range in the order value's unit;
        None for UNBOUNDED; ``ttl_ms``: the state TTL (a partition not written for that long is
        gone, its rows' results not retracted, as Flink's state TTL forgets)."""
        super().__init__(out_schema, ttl_ms)
        self.keys, self.n_fields = tuple(keys), n_fields
        self.order, self.types = tuple(order), tuple(types)
        self.rows, self.preceding = rows, preceding
        self.calls, self.arg_types = tuple(calls), tuple(arg_types)

    def __getstate__(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("_built", None)  # functions: built again where it runs
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)

    def _built(self) -> tuple[Callable[[Row], Any], list[Accumulator]]:
        got = getattr(self, "_built_parts", None)
        if got is None:
            # a bounded frame takes rows back out: MIN/MAX keep every value of the frame
            accs = [accumulator(c, t, True, over=True) for c, t in zip(self.calls, self.arg_types, strict=True)]
            got = self._built_parts = (order_key(self.order, self.types), accs)
        return got

    def new_state(self) -> Any:
        return {"parts": {}, "seq": 0, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None}

    def entries(self, state: Any) -> int:
        return len(state["parts"])

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        sort_key, _ = self._built()
        out = Changes()
        parts: dict[Any, list[list[Any]]] = state["parts"]
        kinds = batch.column(0).to_pylist()
        cols = columns(batch, 1)
        values, fields, args = cols[0], cols[1 : 1 + self.n_fields], cols[1 + self.n_fields :]
        rows: list[Row] = list(zip(*fields, strict=True))
        arg_rows: list[Row] = list(zip(*args, strict=True)) if args else [()] * len(rows)
        expiry: Expiry | None = state.get("ttl")
        touched: set[Any] = set()
        with decimal.localcontext(DECIMAL_CONTEXT):
            for kind, value, row, a in zip(kinds, values, rows, arg_rows, strict=True):
                key = tuple(row[i] for i in self.keys)
                if expiry is not None and key not in touched:
                    touched.add(key)
                    if key in parts and not expiry.alive(key, now_ms):
                        del parts[key]  # idle longer than the TTL: gone, and nothing retracted
                part = parts.setdefault(key, [])
                order = sort_key(row)
                if adds(kind):
                    state["seq"] += 1
                    at = bisect.bisect_right(part, (order, state["seq"]), key=lambda e: (e[KEY], e[SEQ]))
                    part.insert(at, [order, state["seq"], row, a, value, None])
                    self._refresh(part, at, at, out)
                    continue
                found = self._find(part, order, row, a)
                if found is None:
                    continue  # a retraction of a row it does not hold
                gone = part.pop(found)
                if gone[OUT] is not None:
                    out.emit(DELETE, (*thawed(gone[ROW]), *gone[OUT]))
                if part:
                    self._refresh(part, found, None, out, gone)
                else:
                    del parts[key]
        if expiry is not None:
            for key in touched:
                if key in parts:
                    expiry.touch(key, now_ms)
                else:
                    expiry.forget(key)
            expiry.drop_expired(parts, now_ms)
        return out

    @staticmethod
    def _find(part: list[list[Any]], order: Any, row: Row, args: Row) -> int | None:
        """The latest-arrived held row equal to ``row``."""
        lo = bisect.bisect_left(part, order, key=lambda e: e[KEY])
        hi = bisect.bisect_right(part, order, key=lambda e: e[KEY])
        for i in range(hi - 1, lo - 1, -1):
            if part[i][ROW] == row and part[i][ARGS] == args:
                return i
        return None

    def _refresh(self, part: list[list[Any]], at: int, new: int | None, out: Changes, gone: list[Any] | None = None) -> None:
        """Recompute and emit the rows whose frame the change at ``at`` reached: the new row
        (``new``), or the rows after a removed one (``gone``, which was at ``at``)."""
        changed = part[new] if new is not None else gone
        assert changed is not None
        first, last = self._affected(part, at, changed, removed=gone is not None)
        if first > last:
            return
        for i, result in self._results(part, first, last):
            entry = part[i]
            old = entry[OUT]
            if old == result:
                continue
            if old is None:
                out.emit(INSERT, (*thawed(entry[ROW]), *result))
            else:
                out.emit(UPDATE_BEFORE, (*thawed(entry[ROW]), *old))
                out.emit(UPDATE_AFTER, (*thawed(entry[ROW]), *result))
            entry[OUT] = result

    def _affected(self, part: list[list[Any]], at: int, changed: list[Any], removed: bool) -> tuple[int, int]:
        """The first and last positions whose frame holds (or held) the changed row."""
        n = len(part)
        if self.rows:
            start = at
            stop = n - 1 if self.preceding is None else min(n - 1, at + int(self.preceding) - (1 if removed else 0))
            return start, stop
        # RANGE: the changed row's peers (equal order keys) and, with a size, the rows within it after
        start = bisect.bisect_left(part, changed[KEY], key=lambda e: e[KEY])
        if self.preceding is None or changed[VALUE] is None:
            return start, n - 1 if self.preceding is None else bisect.bisect_right(part, changed[KEY], key=lambda e: e[KEY]) - 1
        stop = start
        while stop < n and part[stop][VALUE] is not None and part[stop][VALUE] <= changed[VALUE] + self.preceding:
            stop += 1
        return start, stop - 1

    def _results(self, part: list[list[Any]], first: int, last: int) -> list[tuple[int, tuple[Any, ...]]]:
        """Each row's aggregates over its frame, for the rows ``first``..``last``."""
        _, accs = self._built()
        out: list[tuple[int, tuple[Any, ...]]] = []
        if self.preceding is None:  # UNBOUNDED: one running pass from the first row
            values = [a.new() for a in accs]
            i = 0
            while i <= last:
                j = i if self.rows else bisect.bisect_right(part, part[i][KEY], lo=i, key=lambda e: e[KEY]) - 1
                for k in range(i, j + 1):
                    self._add(values, accs, part[k][ARGS], 1)
                result = tuple(a.value(v) for a, v in zip(accs, values, strict=True))
                out += [(k, result) for k in range(max(i, first), j + 1)]
                i = j + 1
            return out
        for i in range(first, last + 1):
            lo, hi = self._frame(part, i)
            values = [a.new() for a in accs]
            for k in range(lo, hi + 1):
                self._add(values, accs, part[k][ARGS], 1)
            out.append((i, tuple(a.value(v) for a, v in zip(accs, values, strict=True))))
        return out

    def _frame(self, part: list[list[Any]], i: int) -> tuple[int, int]:
        assert self.preceding is not None
        if self.rows:
            return max(0, i - int(self.preceding)), i
        entry = part[i]
        hi = bisect.bisect_right(part, entry[KEY], key=lambda e: e[KEY]) - 1  # with its peers
        if entry[VALUE] is None:  # a NULL order value: its peers only
            return bisect.bisect_left(part, entry[KEY], key=lambda e: e[KEY]), hi
        lo = i
        while lo > 0 and part[lo - 1][VALUE] is not None and part[lo - 1][VALUE] >= entry[VALUE] - self.preceding:
            lo -= 1
        return lo, hi

    def _add(self, values: list[Any], accs: list[Accumulator], args: Row, sign: int) -> None:
        pos = 0
        for j, (acc, call) in enumerate(zip(accs, self.calls, strict=True)):
            values[j] = acc.update(values[j], args[pos : pos + call.args], sign)
            pos += call.args
