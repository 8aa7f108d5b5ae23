"""What every changelog operator is: plain Python over Arrow tables, no Spark (so each is tested
on its own, fast), with its state in one Python object per bucket that the processor keeps in
Spark's state store (``sqlengine.changelog.processor``).

An operator gets one micro-batch of one bucket at a time: per input (a join has two) a table
whose first column is the row kind and whose other columns are the operator's input fields
(``Operator.apply``), and returns the changes it emits, in order, as a table of the same shape
(kind first, then its output fields).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Sequence
from typing import Any

import pyarrow as pa

Row = tuple[Any, ...]
KIND_FIELD = pa.field("kind", pa.int8(), nullable=False)
END_OF_TIME_MS = 253402300799999  # 9999-12-31 23:59:59.999, the last TIMESTAMP(3): a batch run's final watermark


class Changes:
    """The changes one call emits, in order."""

    __slots__ = ("kinds", "rows")

    def __init__(self) -> None:
        self.kinds: list[int] = []
        self.rows: list[Row] = []

    def emit(self, kind: int, row: Row) -> None:
        self.kinds.append(kind)
        self.rows.append(row)

    def __len__(self) -> int:
        return len(self.rows)

    def table(self, schema: pa.Schema) -> pa.Table:
        """As Arrow, ``schema`` being the kind field then the output fields."""
        n = len(schema) - 1
        columns = list(zip(*self.rows, strict=True)) if self.rows else [()] * n
        arrays = [pa.array(self.kinds, pa.int8())]
        arrays += [pa.array(list(c), f.type) for c, f in zip(columns, list(schema)[1:], strict=True)]
        return pa.Table.from_arrays(arrays, schema=schema)


class Expiry:
    """State TTL, as Flink's: an entry not written for ``ttl_ms`` is gone (never read again, no
    retraction emitted). Entries are kept in the order they were last written (a dict keeps
    insertion order; writing one moves it to the end), so the expired ones are found at the
    front, without a scan of the rest."""

    __slots__ = ("ttl_ms", "written")

    def __init__(self, ttl_ms: int) -> None:
        self.ttl_ms = ttl_ms
        self.written: dict[Hashable, int] = {}

    def touch(self, key: Hashable, now_ms: int) -> None:
        self.written.pop(key, None)
        self.written[key] = now_ms

    def forget(self, key: Hashable) -> None:
        self.written.pop(key, None)

    def alive(self, key: Hashable, now_ms: int) -> bool:
        t = self.written.get(key)
        return t is not None and now_ms < t + self.ttl_ms

    def expire(self, now_ms: int) -> list[Any]:
        """The entries whose time is up, oldest first; they are forgotten."""
        out = []
        for key, t in self.written.items():
            if now_ms < t + self.ttl_ms:
                break
            out.append(key)
        for key in out:
            del self.written[key]
        return out

    def drop_expired(self, entries: dict[Any, Any], now_ms: int) -> None:
        """Remove from ``entries`` (keyed as this expiry is) the keys whose time is up."""
        for key in self.expire(now_ms):
            entries.pop(key, None)


class Operator(ABC):
    """One changelog operator's logic. Built in the driver from the plan, pickled into Spark's
    Python workers with the processor."""

    name: str = "operator"
    inputs: int = 1  # how many inputs (a join: 2)
    timed: bool = False  # holds rows until the watermark passes them (``fire``, ``next_time``)
    # "processing": holds rows until the wall clock passes a time (``fire`` gets the clock as
    # its ``watermark_ms``); ``timers``: Spark's processing-time timers fire it without input
    # (an unbounded job; a bounded one fires as its input comes, and ends with what is left open)
    clock: str | None = None
    timers: bool = False
    # a timed operator: the watermark of the micro-batch being applied (the processor sets it
    # before ``apply``; before any watermark, and in batch mode, nothing is behind it)
    watermark_ms: int = -(1 << 63)

    def __init__(self, out_schema: pa.Schema, ttl_ms: int | None) -> None:
        self.out_schema = out_schema  # the kind, then the output fields
        self.ttl_ms = ttl_ms or None

    @abstractmethod
    def new_state(self) -> Any:
        """The state of a bucket that has seen nothing."""

    @abstractmethod
    def apply(self, state: Any, inputs: Sequence[pa.Table | None], now_ms: int) -> Changes:
        """Apply one micro-batch of one bucket to its state (per input, its rows, or None when
        the input has none in this batch); the changes to emit, in order."""

    @abstractmethod
    def entries(self, state: Any) -> int:
        """How many entries the bucket keeps: its keys (groups, kept rows, partitions), or for a
        join the rows its sides hold, as Spark counts a join's state. Reported every micro-batch
        (summed per operator into the job's progress); a bucket that keeps none is cleared."""

    def fire(self, state: Any, watermark_ms: int, now_ms: int) -> Changes:
        """A timed operator: emit what the watermark has passed."""
        raise NotImplementedError(f"{self.name} holds nothing for the watermark")

    def next_time(self, state: Any) -> int | None:
        """A timed operator: the earliest event time a held row waits for."""
        return None

    def end_of_input(self, state: Any) -> Changes | None:
        """Batch mode, after the last row: what a bounded input's end adds (None: nothing)."""
        return None
