"""A continuous query's result as Flink's dynamic table: each micro-batch becomes changelog rows
(+I, -U, +U, -D) applied to a materialized table. Spark's append mode gives +I; update mode gives
the new row of each upsert key, turned here into -U/+U against the row it replaces; the rows of
changelog operators carry their kind (the first column) and are applied as they say: a multiset
of rows, where -U and -D take one copy of the row back."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from planner.logical.changelog import RowKind

Row = tuple[Any, ...]  # a result row: values of any type, as Spark returns them


@dataclass(frozen=True)
class Change:
    kind: RowKind
    row: Row

    def __str__(self) -> str:
        return f"{self.kind}[{', '.join('NULL' if v is None else str(v) for v in self.row)}]"


_NAN = object()  # every NaN, as a key: a NaN equals nothing, not even itself, so a row with one could never be taken back


def _frozen(v: Any) -> Any:
    """A value as a hashable key (Spark gives lists for arrays, dicts for maps)."""
    if isinstance(v, float) and v != v:
        return _NAN
    if isinstance(v, list):
        return tuple(_frozen(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted(((_frozen(k), _frozen(x)) for k, x in v.items()), key=repr))
    return v


@dataclass
class ResultTable:
    columns: tuple[str, ...]
    key: tuple[str, ...] = ()  # upsert key; () for insert-only results
    changelog: bool = False  # rows come with their kind first (a changelog operator's result)
    max_changes: int = 100_000  # changes kept for the changelog view
    types: tuple[object, ...] = ()  # the columns' planned types (sqlglot DataTypes), for printing values as Flink does
    _rows: dict[object, Row] = field(default_factory=dict)  # key -> row (upsert) or seq -> row (append)
    _counts: dict[object, int] = field(default_factory=dict)  # changelog: copies of each row held
    _seq: int = 0
    _last_batch: int = -1
    changes: deque[Change] = field(default_factory=deque)
    total_changes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.changes = deque(maxlen=self.max_changes)
        self._key_idx = [self.columns.index(k) for k in self.key if k in self.columns]

    def apply(self, batch_id: int, rows: Iterable[Row]) -> list[Change]:
        """Apply one micro-batch (each batch at most once, so replays after a restart are no-ops)."""
        out: list[Change] = []
        with self._lock:
            if batch_id <= self._last_batch:
                return out
            self._last_batch = batch_id
            for row in rows:
                row = tuple(row)
                if self.changelog:
                    self._apply_change(RowKind.of_code(row[0]), row[1:], out)
                    continue
                if not self._key_idx:
                    self._rows[self._seq] = row
                    self._seq += 1
                    out.append(Change(RowKind.INSERT, row))
                    continue
                key = tuple(_frozen(row[i]) for i in self._key_idx)
                old = self._rows.get(key)
                if old is None:
                    out.append(Change(RowKind.INSERT, row))
                elif old != row:
                    out.append(Change(RowKind.UPDATE_BEFORE, old))
                    out.append(Change(RowKind.UPDATE_AFTER, row))
                else:
                    continue
                self._rows[key] = row
            self.changes.extend(out)
            self.total_changes += len(out)
        return out

    def _apply_change(self, kind: RowKind, row: Row, out: list[Change]) -> None:
        key = ("row", tuple(_frozen(v) for v in row))
        held = self._rows.get(key)
        count = self._counts.get(key, 0)
        if kind.adds:
            self._rows[key] = row
            self._counts[key] = count + 1
        elif count <= 1:
            if held is None:
                return  # taking back a row the table does not hold (a state TTL forgot it)
            del self._rows[key]
            self._counts.pop(key, None)
        else:
            self._counts[key] = count - 1
        out.append(Change(kind, row))

    def changes_since(self, seen: int) -> tuple[list[Change], int, int]:
        """The changes after the first ``seen`` ones, the new count, and how many of the wanted
        changes were already dropped from the bounded ``changes`` buffer (read under the lock, so
        a batch being applied is either wholly in or wholly out)."""
        with self._lock:
            total = self.total_changes
            wanted = total - seen
            kept = min(wanted, len(self.changes))
            out = list(self.changes)[len(self.changes) - kept :] if kept > 0 else []
            return out, total, max(0, wanted - kept)

    def rows(self) -> list[Row]:
        with self._lock:
            if self.changelog:
                return [row for key, row in self._rows.items() for _ in range(self._counts[key])]
            return list(self._rows.values())

    def __len__(self) -> int:
        return sum(self._counts.values()) if self.changelog else len(self._rows)

    @property
    def last_batch(self) -> int:
        return self._last_batch
