"""A streaming query's progress as we show it: rates, batch duration, watermark, and each stateful
operator's rows and bytes (from Spark's StreamingQueryProgress)."""

from __future__ import annotations

import json
from collections.abc import Container
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql.streaming.listener import StreamingQueryProgress
    from pyspark.sql.streaming.query import StreamingQuery


def shown_watermark(watermark: str | None) -> str:
    """A watermark as progress lines and the views show it: '-' when there is none, "end of
    input" once a bounded job's end-of-input marker (year 9999) has moved it past every window."""
    if not watermark:
        return "-"
    if watermark.startswith("9999-"):
        return "end of input"
    return watermark


@dataclass(frozen=True)
class OperatorState:
    name: str
    rows: int
    bytes: int
    dropped_late: int = 0


@dataclass(frozen=True)
class Snapshot:
    query: str
    batch_id: int
    timestamp: str
    input_rows: int
    input_rps: float
    processed_rps: float
    batch_ms: int
    watermark: str | None
    operators: tuple[OperatorState, ...] = ()
    metrics: dict[str, object] = field(default_factory=dict)  # observed metrics, e.g. malformed-record counts
    # where the batch's time went, as Spark's durationMs has it (queryPlanning, addBatch, walCommit,
    # commitOffsets, latestOffset, getBatch ...), in ms: progress.jsonl keeps it for a reader
    # asking why a batch was slow
    phases: dict[str, int] = field(default_factory=dict)

    @property
    def state_rows(self) -> int:
        return sum(o.rows for o in self.operators)

    @property
    def state_bytes(self) -> int:
        return sum(o.bytes for o in self.operators)

    def line(self) -> str:
        ops = ", ".join(f"{o.name} {o.rows} rows/{_bytes(o.bytes)}" for o in self.operators) or "no state"
        extra = "".join(f", {k}={v}" for k, v in self.metrics.items())
        wm = shown_watermark(self.watermark)
        return (
            f"batch {self.batch_id}: {self.input_rows} rows in, {self.input_rps:.0f} rows/s in, "
            f"{self.processed_rps:.0f} rows/s processed, {self.batch_ms} ms, watermark {wm}; {ops}{extra}"
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), default=str)


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


def _num(v: object) -> float:
    try:
        return float(v)  # type: ignore[arg-type]  # whatever Spark reported; not a number -> 0
    except (TypeError, ValueError):
        return 0.0


# a changelog operator keeps its state per bucket of keys (sqlengine.changelog.processor): Spark
# counts buckets, not keys, so its rows are shown as buckets until its own count arrives
BUCKETS = "changelog operator (rows = buckets of keys)"
KEYS = "changelog operator (rows = keys; a join's rows)"
# sqlengine's JVM operators (sqlengine.jvm) keep one value per key: Spark counts keys
JVM_KEYS = "changelog operator on the JVM (rows = keys)"
CHANGELOG_STATE = {"transformWithStateInPandasExec": BUCKETS, "flatMapGroupsWithState": JVM_KEYS}
# the observed metrics (+ node id) by which a changelog operator reports the keys, and the bytes
# of stored state, it gained per micro-batch
CHANGELOG_METRIC = "changelog-"
CHANGELOG_BYTES = "changelog-bytes-"


@dataclass
class ChangelogKeys:
    """How many keys each changelog operator of a job keeps, and how many bytes its stored state
    takes (each bucket's pickled state, as written to the state store; Spark reports RocksDB's
    memory instead, which does not follow the entries): each micro-batch reports what it gained
    (observed metrics per operator); the running sums replace Spark's count of buckets and its
    bytes. Spark lists state operators top-down, as node ids (pre-order) run, so the operators are
    paired in that order. A job resumed from its checkpoint counts from zero again."""

    totals: dict[tuple[str, int], int] = field(default_factory=dict)
    bytes: dict[tuple[str, int], int] = field(default_factory=dict)

    @staticmethod
    def _gained(snap: Snapshot, prefix: str) -> list[tuple[int, object]]:
        return sorted(
            (int(name[len(prefix) :]), value)
            for name, value in snap.metrics.items()
            if name.startswith(prefix) and name[len(prefix) :].isdigit()
        )

    def apply(self, snap: Snapshot) -> Snapshot:
        for sums, prefix in ((self.totals, CHANGELOG_METRIC), (self.bytes, CHANGELOG_BYTES)):
            for node_id, value in self._gained(snap, prefix):
                key = (snap.query, node_id)
                sums[key] = sums.get(key, 0) + int(_num(value))
        # a batch without the metric (no data) keeps the counts
        counts = [(n, self.bytes.get(k)) for k, n in sorted(self.totals.items()) if k[0] == snap.query]
        if not counts:
            return snap
        left = iter(counts)
        operators = []
        for op in snap.operators:
            count = next(left, None) if op.name == BUCKETS else None
            if count is None:
                operators.append(op)
                continue
            # a job resumed from its checkpoint counts from zero: what it releases of the state it
            # found would take the sums below zero
            keys, stored = count
            operators.append(replace(op, name=KEYS, rows=max(keys, 0), bytes=op.bytes if stored is None else max(stored, 0)))
        metrics = {k: v for k, v in snap.metrics.items() if not k.startswith(CHANGELOG_METRIC)}
        return replace(snap, operators=tuple(operators), metrics=metrics)


def new_progress(query: StreamingQuery, seen: Container[tuple[int, str]]) -> list[dict[str, Any]]:
    """The query's progress updates whose (batchId, timestamp) is not in ``seen``, oldest first,
    as json dicts. pyspark's ``recentProgress`` converts every update Spark keeps (the last 100),
    each a py4j call and a JSON parse, on every call: a job polled twice a second spent a tenth of
    a core on it once its history was full. Walking back from the newest to the first one seen
    converts only the new ones."""
    jsq = getattr(query, "_jsq", None)
    if jsq is None:  # Spark Connect: its client holds the updates already
        out = [json.loads(p.json) if hasattr(p, "json") else p for p in query.recentProgress]
        return [d for d in out if progress_key(d) not in seen]
    updates = jsq.recentProgress()
    new: list[dict[str, Any]] = []
    for i in range(len(updates) - 1, -1, -1):
        p = updates[i]
        if (int(p.batchId()), str(p.timestamp())) in seen:
            break
        new.append(json.loads(p.json()))
    return new[::-1]


def progress_key(data: dict[str, Any]) -> tuple[int, str]:
    """A progress update's identity (its json dict's batchId and timestamp), as ``new_progress``
    reads it from Spark's own objects and ``Snapshot`` keeps it."""
    return int(data.get("batchId") or 0), str(data.get("timestamp") or "")


def from_progress(query_name: str, p: StreamingQueryProgress | dict[str, Any]) -> Snapshot:
    """From a pyspark StreamingQueryProgress (or its json dict)."""
    # its json: over Spark Connect the dict's own values can be None (numInputRows, ...)
    data: dict[str, Any] = json.loads(p.json) if hasattr(p, "json") else p
    ops = []
    for op in data.get("stateOperators") or []:
        ops.append(
            OperatorState(
                name=CHANGELOG_STATE.get(op.get("operatorName") or "", op.get("operatorName") or "state"),
                rows=int(op.get("numRowsTotal") or 0),
                bytes=int(op.get("memoryUsedBytes") or 0),
                dropped_late=int(op.get("numRowsDroppedByWatermark") or 0),
            )
        )
    metrics = {}
    for name, row in (data.get("observedMetrics") or {}).items():
        if hasattr(row, "asDict"):  # a pyspark Row (the progress object is a dict in pyspark 4)
            row = row.asDict()
        if isinstance(row, dict) and set(row) == {"values", "schema"}:  # a Row as Spark Connect's json has it
            row = dict(zip([f["name"] for f in row["schema"].get("fields", [])], row["values"], strict=False))
        if isinstance(row, dict):
            metrics.update({f"{name}.{k}" if len(row) > 1 else name: v for k, v in row.items()})
        else:
            metrics[name] = row
    event = data.get("eventTime") or {}
    sources = data.get("sources") or []
    if "numInputRows" not in data:  # Spark Connect's json has only the sources' figures
        data = {**data, **{k: sum(_num(src.get(k)) for src in sources)
                           for k in ("numInputRows", "inputRowsPerSecond", "processedRowsPerSecond")}}
    batch_id, timestamp = progress_key(data)
    return Snapshot(
        query=query_name,
        batch_id=batch_id,
        timestamp=timestamp,
        input_rows=int(data.get("numInputRows") or 0),
        input_rps=_num(data.get("inputRowsPerSecond")),
        processed_rps=_num(data.get("processedRowsPerSecond")),
        batch_ms=int((data.get("durationMs") or {}).get("triggerExecution") or 0),
        watermark=event.get("watermark"),
        operators=tuple(ops),
        metrics=metrics,
        phases={k: int(_num(v)) for k, v in (data.get("durationMs") or {}).items() if k != "triggerExecution"},
    )
