"""``SHOW STATE 'job'``: what a job keeps, read from its checkpoint with Spark's state data
sources: ``state-metadata`` (each stateful operator: its id, name, stores, partitions, the
batches it has state for) and ``statestore`` (the entries of one store, counted here), with the
bytes of the operator's files in the checkpoint. It reads the last committed batch, so it works
on a running job, a stopped one, or the checkpoint of a job of an earlier session.

A stream-stream join keeps two stores per side; they are read as Spark's reader offers them, one
line per side. A changelog operator (transformWithState) keeps one entry per bucket of keys
(``sqlengine.changelog.processor``): its keys are in the job's progress (DESCRIBE JOB).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.analysis.estimate_figures import human_bytes
from sqlengine import state_backend, storage
from sqlengine.storage import Location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

log = logging.getLogger("sqlengine.state")

COLUMNS = ("query", "operator id", "operator", "store", "partitions", "batch", "entries", "bytes")


@dataclass(frozen=True)
class OperatorState:
    query: str  # the job's streaming query (q0, q1, ...: one per INSERT of a statement set)
    operator_id: int
    operator: str  # Spark's name: stateStoreSave (aggregation), dedupe, symmetricHashJoin, ...
    store: str  # the store, or a join's side, or a changelog operator's state variable
    partitions: int
    batch: int  # the last batch whose state is committed
    entries: int | None  # None: the store could not be read (the reason is in the log)
    bytes: int | None  # the operator's files in the checkpoint (every store, every version kept), on its first line

    def row(self) -> tuple[object, ...]:
        """As ``COLUMNS`` (entries None: "unreadable")."""
        entries = "unreadable" if self.entries is None else self.entries
        return (self.query, self.operator_id, self.operator, self.store, self.partitions, self.batch, entries,
                "" if self.bytes is None else human_bytes(self.bytes))


@dataclass(frozen=True)
class StateReport:
    checkpoint: Location
    backend: str  # Flink's name of the provider the checkpoint was created with
    operators: tuple[OperatorState, ...]

    def __str__(self) -> str:
        lines = [f"State of {self.checkpoint} ({self.backend})"]
        lines += [f"  {o.query} #{o.operator_id} {o.operator} [{o.store}]: {o.entries} entries"
                  for o in self.operators]
        return "\n".join(lines)


def read_state(spark: SparkSession, checkpoint: Location) -> StateReport:
    """The state of every streaming query of a job's checkpoint."""
    operators: list[OperatorState] = []
    backend = None
    queries = sorted((p for p in checkpoint.iterdir() if p.is_dir() and (p / "offsets").is_dir()),
                     key=lambda p: p.name) if checkpoint.is_dir() else []
    for q in queries:
        backend = backend or state_backend.in_checkpoint(q)
        if not (q / "state").is_dir():
            continue  # a stateless query
        operators.extend(_query_state(spark, q))
    return StateReport(checkpoint, state_backend.name_of(backend), tuple(operators))


def _query_state(spark: SparkSession, q: Location) -> list[OperatorState]:
    out = []
    meta = spark.read.format("state-metadata").load(str(q)).collect()
    seen: set[int] = set()
    for m in meta:
        op_id = int(m["operatorId"])
        name = str(m["operatorName"])
        if "HashJoin" in name:  # symmetricHashJoin
            if op_id in seen:
                continue  # one line per side, not per internal store
            seen.add(op_id)
            stores = [("left", {"joinSide": "left"}), ("right", {"joinSide": "right"})]
        elif m["operatorProperties"]:
            variables = [v.get("stateName") for v in json.loads(m["operatorProperties"]).get("stateVariables", [])]
            stores = [(str(v), {"stateVarName": str(v)}) for v in variables if v]
        else:
            stores = [(str(m["stateStoreName"]), {"storeName": str(m["stateStoreName"])})]
        size: int | None = storage.tree_bytes(q / "state" / str(op_id))
        for label, options in stores:
            out.append(OperatorState(
                q.name, op_id, name, label, int(m["numPartitions"]), int(m["maxBatchId"]),
                _entries(spark, q, op_id, options), size,
            ))
            size = None  # an operator's files, once (on its first line)
    return out


def _entries(spark: SparkSession, q: Location, op_id: int, options: dict[str, str]) -> int | None:
    try:
        return int(spark.read.format("statestore").option("operatorId", str(op_id)).options(**options).load(str(q)).count())
    except Exception:  # a store the reader cannot open: say so, the rest of the report stands
        log.warning("reading state store %s %s of %s failed", op_id, options, q, exc_info=True)
        return None
