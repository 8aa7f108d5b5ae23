"""A micro-batch's snapshot keeps where its time went (Spark's durationMs without the total), and
progress.jsonl has it: a reader asking why a batch was slow finds planning, the batch itself and
the commits apart."""

from __future__ import annotations

import json

from sqlengine.progress import from_progress, progress_key


def test_a_snapshot_keeps_the_phases_of_its_batch():
    data = {
        "batchId": 1, "timestamp": "2026-11-26T21:15:41.283Z",
        "durationMs": {"triggerExecution": 5647, "queryPlanning": 1210, "addBatch": 3900, "walCommit": 260,
                       "commitOffsets": 240, "latestOffset": 30, "getBatch": 7},
        "eventTime": {"watermark": "9999-12-31T23:59:55.000Z"}, "stateOperators": [], "numInputRows": 0,
        "inputRowsPerSecond": 0.0, "processedRowsPerSecond": 0.0,
    }
    snap = from_progress("q", data)
    assert snap.batch_ms == 5647
    assert snap.phases == {"queryPlanning": 1210, "addBatch": 3900, "walCommit": 260, "commitOffsets": 240,
                           "latestOffset": 30, "getBatch": 7}
    assert json.loads(snap.to_json())["phases"]["addBatch"] == 3900


def test_a_progress_without_durations_has_no_phases():
    snap = from_progress("q", {"batchId": 0, "numInputRows": 5, "stateOperators": []})
    assert snap.phases == {} and snap.batch_ms == 0


def test_an_update_is_known_by_its_batch_and_timestamp_as_its_snapshot_keeps_them():
    data = {"batchId": 3, "timestamp": "2026-12-01T21:15:41.283Z", "numInputRows": 2, "stateOperators": []}
    snap = from_progress("q", data)
    assert progress_key(data) == (snap.batch_id, snap.timestamp) == (3, "2026-12-01T21:15:41.283Z")
    # Spark Connect's json can hold None for either
    assert progress_key({"batchId": None, "timestamp": None}) == (0, "")
