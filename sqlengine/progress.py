"""A streaming query's progress as we show it: rates, batch duration, watermark, and each stateful
operator's rows and bytes (from Spark's StreamingQueryProgress)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql.streaming.listener import StreamingQueryProgress


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
# counts buckets, not keys, so its rows are shown as buckets
CHANGELOG_STATE = {"transformWithStateInPandasExec": "changelog operator (rows = buckets of keys)"}


def from_progress(query_name: str, p: StreamingQueryProgress | dict[str, Any]) -> Snapshot:
    """From a pyspark StreamingQueryProgress (or its json dict)."""
    data: dict[str, Any] = p if isinstance(p, dict) else json.loads(p.json)
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
        if isinstance(row, dict):
            metrics.update({f"{name}.{k}" if len(row) > 1 else name: v for k, v in row.items()})
        else:
            metrics[name] = row
    event = data.get("eventTime") or {}
    return Snapshot(
        query=query_name,
        batch_id=int(data.get("batchId") or 0),
        timestamp=str(data.get("timestamp") or ""),
        input_rows=int(data.get("numInputRows") or 0),
        input_rps=_num(data.get("inputRowsPerSecond")),
        processed_rps=_num(data.get("processedRowsPerSecond")),
        batch_ms=int((data.get("durationMs") or {}).get("triggerExecution") or 0),
        watermark=event.get("watermark"),
        operators=tuple(ops),
        metrics=metrics,
    )
