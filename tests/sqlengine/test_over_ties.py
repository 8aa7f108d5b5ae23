"""LAG and ROW_NUMBER() in a streaming OVER window, where rows of one partition tie on their time:
the rows Flink 2.3 gave for the same rows and queries (the conformance data has no ties, so its
queries i07 and i08 cannot show this). LAG takes the window's RANGE frame: the tied rows are taken
together and each gets the value before the last of them (Flink's LagAggFunction). ROW_NUMBER()
numbers them one by one in arrival order (Flink gives it a ROWS frame).

The expected rows are Flink's: PyFlink 2.3 in streaming mode, parallelism 1, a CSV file of the
rows below in this order, `WATERMARK FOR ts AS ts - INTERVAL '1' SECOND`, each query's collected
rows (2026-11-28)."""

from __future__ import annotations

from collections import Counter

import pytest

from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, write_json

pytestmark = pytest.mark.spark

# (key, value, second): a's rows at 2 s tie
ROWS = [("a", 1, 1), ("a", 2, 2), ("b", 10, 2), ("a", 3, 2), ("a", 4, 3), ("b", 20, 5), ("a", 6, 9), ("b", -7, 9)]
WINDOW = "OVER (PARTITION BY k ORDER BY ts)"
FLINK = {
    f"LAG(v) {WINDOW}": [("a", 1, None), ("a", 2, 2), ("a", 3, 2), ("a", 4, 3), ("a", 6, 4),
                         ("b", 10, None), ("b", 20, 10), ("b", -7, 20)],
    f"LAG(v, 2, -1) {WINDOW}": [("a", 1, -1), ("a", 2, 1), ("a", 3, 1), ("a", 4, 2), ("a", 6, 3),
                                ("b", 10, -1), ("b", 20, -1), ("b", -7, 10)],
    f"LAG(v, 0) {WINDOW}": [("a", 1, 1), ("a", 2, 3), ("a", 3, 3), ("a", 4, 4), ("a", 6, 6),
                            ("b", 10, 10), ("b", 20, 20), ("b", -7, -7)],
    f"ROW_NUMBER() {WINDOW}": [("a", 1, 1), ("a", 2, 2), ("a", 3, 3), ("a", 4, 4), ("a", 6, 5),
                               ("b", 10, 1), ("b", 20, 2), ("b", -7, 3)],
}


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    runner = Sql(Engine(home=tmp_path_factory.mktemp("ties"), spark=spark))
    data = tmp_path_factory.mktemp("ties-data")
    write_json(data / "t.json", [{"k": k, "v": v, "ts": f"2024-01-01 00:00:0{s}"} for k, v, s in ROWS])
    runner.ddl(f"CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
               f"WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json')")
    return runner


@pytest.mark.parametrize("call", list(FLINK))
def test_tied_rows_get_flinks_values(sql: Sql, call: str) -> None:
    got = sql.rows(f"SELECT k, v, {call} AS x FROM t", "streaming")
    assert Counter(tuple(r) for r in got) == Counter(FLINK[call])
