"""CUMULATE windows on Spark (which has none): every window [S, S + k*step) of a max-size window
ends in the rows Flink computes, in streaming (released by the watermark) and in batch."""

from __future__ import annotations

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine

pytestmark = pytest.mark.spark

ROWS = [
    ("a", 1, "00:00:05"), ("a", 2, "00:00:25"), ("b", 4, "00:00:45"),
    ("a", 8, "00:01:10"), ("a", 16, "00:00:59"), ("b", 32, "00:02:30"),
]

EXPECTED = sorted([
    ("a", "00:00:00", "00:00:20", 1, 1), ("a", "00:00:00", "00:00:40", 3, 2), ("a", "00:00:00", "00:01:00", 19, 3),
    ("a", "00:01:00", "00:01:20", 8, 1), ("a", "00:01:00", "00:01:40", 8, 1), ("a", "00:01:00", "00:02:00", 8, 1),
    ("b", "00:00:00", "00:01:00", 4, 1),
    ("b", "00:02:00", "00:02:40", 32, 1), ("b", "00:02:00", "00:03:00", 32, 1),
])


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_cumulate_windows_as_flink(tmp_path, spark, mode):
    data = tmp_path / "t.json"
    data.write_text("".join(f'{{"k": "{k}", "v": {v}, "ts": "2024-01-01 {t}.000"}}\n' for k, v, t in ROWS))
    engine = Engine(home=tmp_path / "home", spark=spark)
    sql = f"""
    SET 'execution.runtime-mode' = '{mode}';
    CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');
    SELECT k, window_start, window_end, SUM(v) AS s, COUNT(*) AS n
    FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '20' SECOND, INTERVAL '1' MINUTE))
    GROUP BY k, window_start, window_end;
    """
    *setup, query = parse_script(sql).statements
    for stmt in setup:
        engine.plan(stmt)
    job = engine.start(engine.plan(query))
    job.wait()
    rows = sorted((k, s.strftime("%H:%M:%S"), e.strftime("%H:%M:%S"), total, n) for k, s, e, total, n in job.result.rows())
    assert rows == EXPECTED
