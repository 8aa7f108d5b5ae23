"""Top-N per partition over a changelog (Flink's Rank operators): ``ROW_NUMBER``, ``RANK`` or
``DENSE_RANK`` up to N, with or without the rank number in the output; also ``ORDER BY ... LIMIT``
(one partition) and a deduplication whose input updates (a Top-1).

Input: the row kind, then the input row (every input field). The partition key and the order
are positions in the row.

State layout, per partition key, chosen by the planner from the input's changelog as Flink
chooses (``planner.analysis.physical.RankStrategy``; ``planner.analysis.state`` says the same):

- ``AppendFastStrategy`` (the input only appends): the rows ranked within N, sorted;
- ``UpdateFastStrategy`` (an upsert input whose order only improves, e.g. ``ORDER BY COUNT(*)
  DESC``): the rows ranked within N, sorted, and which upsert key each is;
- ``RetractStrategy`` (anything else): every row the input holds, sorted (a retraction may bring
  any of them into the top N).

Each entry is (sort key, arrival number, row): rows that tie on the order keep their arrival
order, as in Flink. Nothing releases a partition but its last row being retracted, or the state
TTL (per partition, from its last change).

Output per micro-batch and partition: the difference between the ranked rows before and after
the batch. With the rank number, a position whose row changed is -U (old row, its rank) then +U
(new row); a new position +I, a vanished one -D. Without it, rows that left the top -D and rows
that entered +I.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import DELETE, INSERT, SIGN, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import Row, columns, order_key, thawed

APPEND_FAST, UPDATE_FAST, RETRACT = "AppendFastStrategy", "UpdateFastStrategy", "RetractStrategy"
ROW_NUMBER, RANK, DENSE_RANK = "ROW_NUMBER", "RANK", "DENSE_RANK"


class TopN(Operator):
    name = "Top-N"

    def __init__(
        self,
        partition: Sequence[int],
        order: Sequence[tuple[int, bool]],
        row_types: Sequence[pa.DataType],
        n: int,
        out_schema: pa.Schema,
        *,
        function: str = ROW_NUMBER,
        rank_position: int | None = None,
        strategy: str = RETRACT,
        row_key: Sequence[int] = (),
        ttl_ms: int | None = None,
    ) -> None:
        super().__init__(out_schema, ttl_ms)
        self.partition = tuple(partition)
        self.order = tuple(order)
        self.row_types = tuple(row_types)
        self.n = n
        self.function = function
        self.rank_position = rank_position  # where the rank number goes in the output row, or None
        self.strategy = strategy
        self.row_key = tuple(row_key)  # UpdateFastStrategy: the upsert key's positions

    def new_state(self) -> Any:
        return {"parts": {}, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None, "seq": 0}

    def entries(self, state: Any) -> int:
        return len(state["parts"])

    # -- ranking -------------------------------------------------------------------------------

    def _ranked(self, entries: list[Any]) -> list[tuple[int, Row]]:
        """The rows within rank N, with their ranks."""
        out: list[tuple[int, Row]] = []
        n, function = self.n, self.function
        if function == ROW_NUMBER:
            return [(i + 1, e[2]) for i, e in enumerate(entries[:n])]
        rank = dense = 0
        prev: Any = object()
        for i, (key, _, row) in enumerate(entries):
            if key != prev:
                rank, dense, prev = i + 1, dense + 1, key
            r = rank if function == RANK else dense
            if r > n:
                break
            out.append((r, row))
        return out

    def _trim(self, entries: list[Any], index: dict[Any, Any] | None) -> None:
        """Drop the entries past rank N (an insert-only or only-improving input never brings
        them back: a row that improves arrives again)."""
        keep = len(self._ranked(entries)) if self.function != ROW_NUMBER else self.n
        for e in entries[keep:]:
            if index is not None:
                index.pop(self._row_key(e[2]), None)
        del entries[keep:]

    def _row_key(self, row: Row) -> Any:
        return tuple(row[i] for i in self.row_key)

    def _emit(self, out: Changes, before: list[tuple[int, Row]], after: list[tuple[int, Row]]) -> None:
        pos = self.rank_position
        if pos is None:
            gone = [row for _, row in before]
            for _, row in after:
                if row in gone:
                    gone.remove(row)
                else:
                    out.emit(INSERT, self._out(row, None))
            for row in gone:
                out.emit(DELETE, self._out(row, None))
            return
        for i in range(max(len(before), len(after))):
            old = before[i] if i < len(before) else None
            new = after[i] if i < len(after) else None
            if old == new:
                continue
            if old is not None and new is not None:
                out.emit(UPDATE_BEFORE, self._out(old[1], old[0]))
                out.emit(UPDATE_AFTER, self._out(new[1], new[0]))
            elif new is not None:
                out.emit(INSERT, self._out(new[1], new[0]))
            elif old is not None:
                out.emit(DELETE, self._out(old[1], old[0]))

    def _out(self, row: Row, rank: int | None) -> Row:
        values = thawed(row)
        if self.rank_position is None:
            return values
        return (*values[: self.rank_position], rank, *values[self.rank_position :])

    # -- one micro-batch -----------------------------------------------------------------------

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        parts: dict[Any, list[Any]] = state["parts"]
        expiry: Expiry | None = state["ttl"]
        cols = columns(batch, 0)
        kinds = cols[0]
        rows: list[Row] = list(zip(*cols[1:], strict=True))
        key_of = order_key(self.order, self.row_types)
        pidx = self.partition
        strategy = self.strategy
        # appends ranked by ROW_NUMBER: a row no better than the Nth of a full partition comes
        # after it (ties keep arrival order) and never enters: skipped before any other work
        append_rows = strategy == APPEND_FAST and self.function == ROW_NUMBER and expiry is None
        n = self.n
        seq = state["seq"]
        touched: dict[Any, list[tuple[int, Row]]] = {}
        for kind, row in zip(kinds, rows, strict=True):
            pkey = tuple(row[i] for i in pidx)
            part = parts.get(pkey)
            if append_rows and part is not None and len(part[0]) >= n and not key_of(row) < part[0][n - 1][0]:
                continue  # (order keys define < only: a descending one may wrap its value in Desc)
            if part is not None and expiry is not None and pkey not in touched and not expiry.alive(pkey, now_ms):
                del parts[pkey]  # idle longer than the TTL: gone, nothing retracted
                part = None
            if part is None:
                if SIGN[kind] < 0:
                    continue  # the retraction of a row this operator does not hold
                part = [[], {} if strategy == UPDATE_FAST else None]
                parts[pkey] = part
            entries, index = part
            if pkey not in touched:
                touched[pkey] = self._ranked(entries)
            key = key_of(row)
            if SIGN[kind] > 0:
                if strategy == UPDATE_FAST:
                    old = index.pop(self._row_key(row), None)
                    if old is not None:
                        entries.remove(old)
                seq += 1
                entry = (key, seq, row)
                bisect.insort(entries, entry, key=_sort)
                if strategy == UPDATE_FAST:
                    index[self._row_key(row)] = entry
                if strategy != RETRACT:
                    self._trim(entries, index)
            elif strategy == RETRACT:
                i = bisect.bisect_left(entries, (key,), key=lambda e: (e[0],))
                while i < len(entries) and entries[i][0] == key:
                    if entries[i][2] == row:
                        del entries[i]
                        break
                    i += 1
            # UpdateFastStrategy: an update's -U is followed by its +U, which replaces the row
        state["seq"] = seq
        out = Changes()
        for pkey, before in touched.items():
            entries = parts[pkey][0]
            self._emit(out, before, self._ranked(entries))
            if not entries:
                del parts[pkey]
                if expiry is not None:
                    expiry.forget(pkey)
            elif expiry is not None:
                expiry.touch(pkey, now_ms)
        if expiry is not None:
            expiry.drop_expired(parts, now_ms)
        return out


def _sort(entry: Any) -> Any:
    return (entry[0], entry[1])
