"""Deduplication of an insert-only input (Flink's Deduplicate: ``ROW_NUMBER() OVER (PARTITION BY
k ORDER BY time [DESC]) = 1``), as a changelog operator: where another stateful operator reads
its updates, a state TTL is in force, or Spark cannot order by the column. (Over an updating
input Flink ranks instead: ``sqlengine.changelog.topn`` with N = 1.)

Input: the row kind (always +I), then the input row; the key and the order column are positions
in it.

State layout, per key (``planner.analysis.state``: "the last row" / "a marker" per key): the row kept and
its order value (keep-first on processing time keeps the row it emitted; the next rows are
dropped). Nothing releases a key but the state TTL (from the key's last change).

Keep-first on event time replaces the row when an earlier one arrives, keep-last when a row at
the same time or later does, keep-last on processing time with every row. Output per micro-batch
and key: +I for the first row, -U/+U when the kept row was replaced; the rank number, when
projected, is always 1. A versioned view read by a temporal join (``every_change``) emits each
replacement as it happens instead: every row it keeps, however briefly, is a version there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import INSERT, UPDATE_AFTER, UPDATE_BEFORE
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import Row, columns, order_key, thawed


class Deduplicate(Operator):
    name = "deduplication"

    def __init__(
        self,
        keys: Sequence[int],
        order: int,
        row_types: Sequence[pa.DataType],
        out_schema: pa.Schema,
        *,
        keep_last: bool,
        on_proctime: bool,
        rank_position: int | None = None,
        ttl_ms: int | None = None,
        every_change: bool = False,
    ) -> None:
        super().__init__(out_schema, ttl_ms)
        self.every_change = every_change
        self.keys = tuple(keys)
        self.order = order
        self.row_types = tuple(row_types)
        self.keep_last = keep_last
        self.on_proctime = on_proctime
        self.rank_position = rank_position

    def new_state(self) -> Any:
        return {"kept": {}, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None}

    def entries(self, state: Any) -> int:
        return len(state["kept"])

    def _replaces(self, new_key: Any, old_key: Any) -> bool:
        if self.on_proctime:
            return self.keep_last  # the last arrival, or never past the first
        return bool(new_key >= old_key if self.keep_last else new_key < old_key)

    def _out(self, row: Row) -> Row:
        values = thawed(row)
        pos = self.rank_position
        return values if pos is None else (*values[:pos], 1, *values[pos:])

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        kept: dict[Any, tuple[Any, Row]] = state["kept"]
        expiry: Expiry | None = state["ttl"]
        cols = columns(batch, 1)
        rows: list[Row] = list(zip(*cols, strict=True))
        key_of = order_key(((self.order, False),), self.row_types)  # NULLs first, as Flink orders
        touched: dict[Any, tuple[Any, Row] | None] = {}
        out = Changes()
        for row in rows:
            k = tuple(row[i] for i in self.keys)
            old = kept.get(k)
            if old is not None and expiry is not None and k not in touched and not expiry.alive(k, now_ms):
                del kept[k]  # idle longer than the TTL: gone, and the next row is emitted again
                old = None
            if k not in touched:
                touched[k] = old
            new_key = key_of(row)
            if old is None or self._replaces(new_key, old[0]):
                kept[k] = (new_key, row)
                if self.every_change:
                    if old is not None:
                        out.emit(UPDATE_BEFORE, self._out(old[1]))
                    out.emit(UPDATE_AFTER if old is not None else INSERT, self._out(row))
        for k, before in touched.items():
            after = kept[k]
            if self.every_change:
                pass  # emitted as they happened
            elif before is None:
                out.emit(INSERT, self._out(after[1]))
            elif after[1] != before[1]:
                out.emit(UPDATE_BEFORE, self._out(before[1]))
                out.emit(UPDATE_AFTER, self._out(after[1]))
            if expiry is not None and (before is None or after is not before):
                expiry.touch(k, now_ms)
        if expiry is not None:
            expiry.drop_expired(kept, now_ms)
        return out
