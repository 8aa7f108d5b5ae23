"""Flink's ChangelogNormalize, as a changelog operator: the records of an upsert source (each an
upsert of its key's row, or a delete: a Kafka tombstone, only the key set) made into a changelog
that every other operator can read.

Input: the row kind (0 an upsert, 3 a delete; a -U or +U from another changelog counts as a
delete or an upsert of its key), then the row; the key is positions in it.

State layout, per key (``planner.analysis.state``: "the last row" per key): the row last upserted.
A delete releases the key; otherwise only the state TTL does (from the key's last change).

Output per micro-batch and key, from the row held before the batch to the row held after it (the
changes of one batch are folded, as Flink's mini-batch does): +I for a new key, -U/+U when its
row changed, -D of the whole row held when it was deleted, nothing when an upsert repeats the
row held or a delete names a key not held. With a TTL in force, a delete of a key not held is
passed on as it came (Flink: the key may have been forgotten, the row downstream not).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.kinds import DELETE, INSERT, UPDATE_AFTER, UPDATE_BEFORE, adds
from sqlengine.changelog.operator import Changes, Expiry, Operator
from sqlengine.changelog.values import Row, columns, thawed


class ChangelogNormalize(Operator):
    name = "changelog normalize"

    def __init__(self, keys: Sequence[int], out_schema: pa.Schema, ttl_ms: int | None = None) -> None:
        super().__init__(out_schema, ttl_ms)
        self.keys = tuple(keys)

    def new_state(self) -> Any:
        return {"rows": {}, "ttl": Expiry(self.ttl_ms) if self.ttl_ms else None}

    def entries(self, state: Any) -> int:
        return len(state["rows"])

    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        batch = inputs[0]
        assert batch is not None
        held: dict[Any, Row] = state["rows"]
        expiry: Expiry | None = state["ttl"]
        kinds = batch.column(0).to_pylist()
        rows: list[Row] = list(zip(*columns(batch, 1), strict=True))
        before: dict[Any, Row | None] = {}  # per key touched: the row held before the batch
        orphan_deletes: dict[Any, Row] = {}  # deletes of keys not held (passed on under a TTL)
        for kind, row in zip(kinds, rows, strict=True):
            k = tuple(row[i] for i in self.keys)
            if k not in before:
                old = held.get(k)
                if old is not None and expiry is not None and not expiry.alive(k, now_ms):
                    del held[k]  # idle longer than the TTL: forgotten, no retraction
                    expiry.forget(k)
                    old = None
                before[k] = old
            if adds(kind):
                held[k] = row
                orphan_deletes.pop(k, None)
            else:
                if k not in held and before[k] is None:
                    orphan_deletes[k] = row
                held.pop(k, None)
        out = Changes()
        for k, old in before.items():
            new = held.get(k)
            if old is None and new is not None:
                out.emit(INSERT, thawed(new))
            elif old is not None and new is None:
                out.emit(DELETE, thawed(old))
            elif old is not None and new is not None and old != new:
                out.emit(UPDATE_BEFORE, thawed(old))
                out.emit(UPDATE_AFTER, thawed(new))
            elif old is None and new is None and expiry is not None and k in orphan_deletes:
                out.emit(DELETE, thawed(orphan_deletes[k]))
            if expiry is not None:
                if new is None:
                    expiry.forget(k)
                elif new is not old:
                    expiry.touch(k, now_ms)
        if expiry is not None:
            expiry.drop_expired(held, now_ms)
        return out

