"""Ties in arrival order on Spark's batch engine (planner.analysis.arrival): a ROW_NUMBER whose rows
come straight from a scan keeps, of rows that tie on its order, the first the scan read (a
deduplication keeping the last row: the last), as Flink's streaming operators keep the first to
arrive; so does a bounded SELECT of one, run as one batch job.

Every row of the file has the same event time; in batch mode the file is read in several
partitions (a small 'spark.sql.files.maxPartitionBytes'), so the ties cross partitions and
Spark's sort sees them after a shuffle."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from tests.sqlengine.helpers import ran_as, run_statement

pytestmark = pytest.mark.spark

N = 60  # rows per key, in file order i = 0..N-1, keys interleaved


def _engine(tmp_path: Path, spark, mode: str, **settings: str) -> Engine:
    data = tmp_path / "bids.json"
    data.write_text("".join(f'{{"k": {k}, "i": {i}, "price": {i % 5}, "ts": "2026-12-05 10:00:00"}}\n'
                            for i in range(N) for k in (1, 2)))
    engine = Engine(home=tmp_path / f"home-{mode}-{len(settings)}", spark=spark)
    engine.planner.settings.update({"execution.runtime-mode": mode, **settings})
    (ddl,) = parse_script(f"""CREATE TABLE bids (k INT, i INT, price INT, ts TIMESTAMP(3),
      WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');
    """).statements
    engine.plan(ddl)
    return engine


QUERIES = {
    # keep-first: the first row of each key in the file
    "first": ("SELECT k, i FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS r FROM bids) WHERE r = 1",
              {(1, 0), (2, 0)}),
    # keep-last: the last (Flink replaces the kept row by a later one of an equal time)
    "last": ("SELECT k, i FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS r FROM bids) WHERE r = 1",
             {(1, N - 1), (2, N - 1)}),
    # Top-3 by price: of the rows of the top price (4), the first three read, past a filter
    "top3": ("SELECT k, i FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY price DESC) AS r FROM bids "
             "WHERE i >= 10) WHERE r <= 3", {(k, i) for k in (1, 2) for i in (14, 19, 24)}),
    "limit": ("SELECT k, i FROM bids ORDER BY price DESC LIMIT 3", {(1, 4), (2, 4), (1, 9)}),
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_batch_ranking_straight_from_a_scan_breaks_ties_in_the_order_it_read_them(tmp_path, spark, name):
    sql, want = QUERIES[name]
    job = run_statement(_engine(tmp_path, spark, "batch", **{"spark.sql.files.maxPartitionBytes": "1024"}), sql + ";")
    assert job.status.value == "FINISHED", job.error_detail
    ran_as(job, "batch")
    assert set(job.result.rows()) == want


@pytest.mark.parametrize("name", ["first", "last", "top3"])
def test_a_bounded_ranking_select_runs_as_one_batch_keeping_the_first_arrival_as_flink(tmp_path, spark, name):
    sql, want = QUERIES[name]
    job = run_statement(_engine(tmp_path, spark, "streaming", **{"spark.sql.files.maxPartitionBytes": "1024"}), sql + ";")
    assert job.status.value == "FINISHED", job.error_detail
    # the ties cross the partitions the job's session reads the file in
    assert job.spark.read.json(str(tmp_path / "bids.json")).rdd.getNumPartitions() > 2
    assert job.one_batch and job.batch  # shown as its table: runs as one batch job
    assert set(job.result.rows()) == want
