"""Ties on Spark's own best-row aggregation (a streaming Top-1 or deduplication,
``sqlengine.translate.aggregates``): of rows equal on the order, the row of the earlier micro-batch
stays, as Flink keeps the first to arrive, and within one micro-batch (one Spark partition) the
first read (each row's arrival number, sqlengine/jvm/Arrival.java); keeping the last row, the later
batch's, and within one micro-batch the last read, as on Flink. Two files, read one per
micro-batch. Without the JVM ('sqlengine.changelog.jvm' = 'false') a micro-batch's ties keep the
last row read (docs/semantics.md)."""

from __future__ import annotations

import json
import os

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from tests.sqlengine.helpers import ran_as, run_statement

pytestmark = pytest.mark.spark

BATCHES = [  # (k, i, price, ts second): i numbers the rows in arrival order
    [(1, 0, 1, 9), (1, 1, 1, 5), (2, 3, 1, 7), (2, 4, 1, 7), (3, 5, 5, 0), (3, 6, 7, 0), (4, 12, 1, 3), (4, 13, 1, 3)],
    [(1, 8, 1, 5), (2, 9, 1, 7), (2, 10, 1, 6), (3, 11, 7, 0)],
]
QUERIES = {  # the order, and the kept row of the keys it is about
    # keep-first on event time: of the earliest, the earlier batch's (k 1: i 1, not 8), and within
    # a batch the first (k 4: i 12, not 13)
    "first": ("ORDER BY ts", {1: 1, 2: 10, 4: 12}),
    # keep-last: of the latest, the later batch's (k 2: i 9, not 3 or 4), and within a batch the
    # last (k 4: i 13)
    "last": ("ORDER BY ts DESC", {1: 0, 2: 9, 3: 11, 4: 13}),
    # Top-1 by price: of the top price, the earlier batch's (k 3: i 6, not 11), and within a batch
    # the first (k 1: i 0; k 2: i 3; k 4: i 12)
    "top1": ("ORDER BY price DESC", {1: 0, 2: 3, 3: 6, 4: 12}),
    # Top-1 on processing time ascending, then price (a micro-batch's rows share one processing
    # time): of each key's first batch, the lowest price, the first read among equal prices
    "proctime first": ("ORDER BY pt, price", {1: 0, 2: 3, 3: 5, 4: 12}),
    # keep-last on processing time: each key's last row read
    "proctime last": ("ORDER BY pt DESC", {1: 8, 2: 10, 3: 11, 4: 13}),
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_streaming_best_row_keeps_the_first_arrival_among_ties_as_flink(tmp_path, spark, name):
    order, want = QUERIES[name]
    data = tmp_path / "data"
    data.mkdir()
    for n, rows in enumerate(BATCHES):
        f = data / f"part-{n}.json"
        f.write_text("".join(json.dumps({"k": k, "i": i, "price": p, "ts": f"2026-12-05 10:00:{s:02d}"}) + "\n"
                             for k, i, p, s in rows))
        os.utime(f, (1_700_000_000 + n, 1_700_000_000 + n))  # Spark's file source takes the oldest first
    engine = Engine(home=tmp_path / "home", spark=spark)
    (ddl,) = parse_script(f"""CREATE TABLE t (k INT, i INT, price INT, ts TIMESTAMP(3), pt AS PROCTIME(),
      WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH ('connector' = 'filesystem', 'path' = '{data}',
      'format' = 'json', 'source.max-files-per-trigger' = '1');""").statements
    engine.plan(ddl)
    job = run_statement(engine, f"SELECT k, i FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k {order}) AS r "
                                "FROM t) WHERE r = 1;")
    assert job.status.value == "FINISHED", job.error_detail
    ran_as(job, "streaming")
    assert len(job.history) >= 2  # one micro-batch per file
    kept = dict(job.result.rows())
    assert {k: kept[k] for k in want} == want
