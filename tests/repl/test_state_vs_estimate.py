"""Measured state next to the estimate (repl/state_prompt.py): the entries and bytes EXPLAIN
estimated, Spark's figures beside them, and a warning once an operator keeps more than twice its
estimate. Snapshots are built as Spark's progress gives them; no Spark runs here."""

from __future__ import annotations

from repl.shell import Shell
from repl.state_prompt import estimate_text, estimate_warnings, measured_vs_estimate
from sqlengine.progress import OperatorState, Snapshot
from tests.planner.helpers import outcome

DDL = """
SET 'spark.sql.shuffle.partitions' = '2';
CREATE TABLE g (k INT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '2000', 'fields.k.min' = '1', 'fields.k.max' = '100');
"""
TUMBLE = "SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;"


def snapshot(rows: int, nbytes: int) -> dict[str, Snapshot]:
    op = OperatorState("stateStoreSave", rows, nbytes)
    return {"select-abc-0": Snapshot("select-abc-0", 3, "2026-11-26T00:00:00Z", 10, 1.0, 1.0, 5, None, (op,))}


def test_the_estimate_is_in_entries_and_bytes_beside_what_spark_kept() -> None:
    analysis = outcome(DDL, TUMBLE).analysis
    assert analysis is not None
    (info,) = analysis.state
    assert estimate_text(analysis, info) == "plateaus at ≈ 120 entries, 33.6 KB"
    (line,) = measured_vs_estimate(snapshot(100, 41_000), analysis)
    assert line == "WindowAggregate (stateStoreSave): 100 rows, 41.0 KB — bounded, est. plateaus at ≈ 120 entries, 33.6 KB"
    assert estimate_warnings(snapshot(100, 41_000), analysis) == []


def test_state_past_twice_its_estimate_is_flagged() -> None:
    analysis = outcome(DDL, TUMBLE).analysis
    (line,) = measured_vs_estimate(snapshot(500, 200_000), analysis)
    assert line.endswith("— 4.2× the estimate: check the statistics behind it")
    ((key, warning),) = estimate_warnings(snapshot(500, 200_000), analysis)
    assert key == "select-abc-0#0"
    assert warning.startswith("WindowAggregate keeps 500 state entries, 4.2× the estimate of 120: ")


class _Job:
    """What Shell.job_notes reads of a running INSERT job."""

    id, kind, done = "j1", "insert", False

    def __init__(self, latest):
        self.latest = latest


class _Engine:
    def __init__(self, jobs):
        self.jobs = jobs

    def job_list(self):
        return self.jobs


def test_the_shell_warns_once_per_job_and_operator() -> None:
    analysis = outcome(DDL, TUMBLE).analysis
    job = _Job(snapshot(500, 200_000))
    shell = Shell.__new__(Shell)  # only what job_notes reads
    shell.engine, shell.analyses, shell._announced, shell._warned = _Engine([job]), {"j1": analysis}, {}, set()
    (note,) = shell.job_notes()
    assert note[0] == "warning" and note[1].startswith("[WARNING] Job j1: WindowAggregate keeps 500 state entries, 4.2× the estimate")
    assert shell.job_notes() == []  # once
