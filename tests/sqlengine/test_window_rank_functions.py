"""RANK and DENSE_RANK in a window Top-N: Flink 2.3 refuses them on a stream (its window Top-N
takes ROW_NUMBER only: "RANK() function is not supported on Window TopN currently") and runs them
in batch mode (as a Rank partitioned by the window), keeping ties. sqlengine does the same."""

from __future__ import annotations

import pytest

from planner.errors import SqlError
from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, write_batches

pytestmark = pytest.mark.spark

# counts per item: window [0 s, 10 s): a 2, b 2, c 1; window [10 s, 20 s): d 1, e 1
EVENTS = [("a", 1), ("b", 2), ("a", 3), ("b", 4), ("c", 5), ("d", 11), ("e", 12)]
QUERY = """SELECT window_start, item, c, r FROM (
  SELECT *, {func}() OVER (PARTITION BY window_start, window_end ORDER BY c DESC) AS r FROM (
    SELECT item, COUNT(*) AS c, window_start, window_end
    FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
    GROUP BY item, window_start, window_end)) WHERE r <= {n}"""


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    home = tmp_path_factory.mktemp("window-rank")
    data = write_batches(home / "events", [[{"item": i, "ts": f"2024-01-01 00:00:{s:02d}.000"} for i, s in EVENTS]])
    runner = Sql(Engine(home=home / "home", spark=spark))
    runner.ddl(f"""CREATE TABLE events (item STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                   WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');""")
    return runner


def test_batch_mode_ranks_each_window_with_ties(sql: Sql) -> None:
    rank = sql.rows(QUERY.format(func="RANK", n=1), "batch")
    assert sorted((s.second, item, c, r) for s, item, c, r in rank) == [(0, "a", 2, 1), (0, "b", 2, 1), (10, "d", 1, 1), (10, "e", 1, 1)]
    dense = sql.rows(QUERY.format(func="DENSE_RANK", n=2), "batch")
    assert sorted((s.second, item, r) for s, item, _, r in dense) == [(0, "a", 1), (0, "b", 1), (0, "c", 2), (10, "d", 1), (10, "e", 1)]


@pytest.mark.parametrize("func", ["RANK", "DENSE_RANK"])
def test_a_stream_refuses_them_as_flink_does(sql: Sql, func: str) -> None:
    sql.mode("streaming")
    outcome = sql.outcome(QUERY.format(func=func, n=1))
    with pytest.raises(SqlError) as err:
        sql.engine.start(outcome)
    assert f"{func}() in a window Top-N is not supported on a stream, as in Flink 2.3 (only ROW_NUMBER() is)" in str(err.value)
    assert err.value.span is not None  # positioned at the ranking call
