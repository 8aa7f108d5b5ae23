"""The JVM window aggregation on processing time (sqlengine/jvm/WindowAgg.java) against the
Python one (sqlengine/changelog/window_aggregate.py) on the same input: every row read in one
micro-batch (one processing time), each window emitted once when the clock passes its end with no
input after it, with the same aggregates on both (COUNT(*), COUNT, SUM, AVG, MIN, MAX, FILTER over
NaN, -0.0, decimals, strings beyond the BMP and NULLs), for TUMBLE and HOP table functions, the
legacy GROUP BY TUMBLE and SESSION forms and CUMULATE (which planner.analysis.jvm_operators runs
on the JVM: tests/planner/test_jvm_operators.py)."""

from __future__ import annotations

import math
from collections import Counter
from decimal import Decimal

import pytest

from sqlengine.jobs import Status
from tests.sqlengine.jvm_runs import bids, continuous
from tests.sqlengine.test_jvm_group_aggregate import BATCHES

pytestmark = pytest.mark.spark

CALLS = ("COUNT(*) AS c, COUNT(bidder) AS cb, SUM(price) AS s, AVG(amount) AS a, MIN(bidder) AS lo, MAX(price) AS hi, "
         "SUM(price) FILTER (WHERE amount > 1) AS sf, AVG(price) AS ap, MIN(amount) AS la")
ITEMS = 4  # the items of BATCHES: one window (per size) each
QUERIES = {
    # name: (query, the windows' size in s, windows per item; None: either)
    "tumble": (f"SELECT item, window_start, window_end, {CALLS} FROM TABLE(TUMBLE(TABLE clicked, DESCRIPTOR(pt), "
               "INTERVAL '1' SECOND)) GROUP BY item, window_start, window_end", 1, 1),
    "hop": (f"SELECT item, window_start, window_end, {CALLS} FROM TABLE(HOP(TABLE clicked, DESCRIPTOR(pt), INTERVAL '1' SECOND, "
            "INTERVAL '2' SECOND)) GROUP BY item, window_start, window_end", 2, 2),
    "legacy tumble": (f"SELECT item, TUMBLE_START(pt, INTERVAL '1' SECOND), TUMBLE_END(pt, INTERVAL '1' SECOND), {CALLS} "
                      "FROM clicked GROUP BY item, TUMBLE(pt, INTERVAL '1' SECOND)", 1, 1),
    "session": (f"SELECT item, SESSION_START(pt, INTERVAL '1' SECOND), SESSION_END(pt, INTERVAL '1' SECOND), {CALLS} "
                "FROM clicked GROUP BY item, SESSION(pt, INTERVAL '1' SECOND)", 1, 1),
    # a row falls into one or two windows of a CUMULATE, by where in the 2 s its read time is
    "cumulate": (f"SELECT item, window_start, window_end, {CALLS} FROM TABLE(CUMULATE(TABLE clicked, DESCRIPTOR(pt), "
                 "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY item, window_start, window_end", None, None),
}


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("jvm-window-aggregate")
    runner = bids(spark, root, BATCHES)
    runner.ddl("CREATE TABLE clicked (item BIGINT, bidder STRING, price DOUBLE, amount DECIMAL(10, 2), placed TIMESTAMP(3), "
               f"pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = '{root / 'bids'}', 'format' = 'json', "
               "'source.monitor-interval' = '1 s')")
    return runner


def _exact(value):
    if isinstance(value, float):
        return "nan" if math.isnan(value) else value.hex()
    if isinstance(value, Decimal):
        return str(value)
    return value


def _windows(sql, query: str, jvm: bool, windows: int, size: float = 0) -> list[tuple]:
    """The rows of the continuous query once ``windows`` windows of at least ``size`` seconds
    have closed (then stopped)."""

    def closed(job) -> bool:
        rows = job.result.rows() if job.result is not None else []
        return len([r for r in rows if (r[2] - r[1]).total_seconds() >= size]) >= windows

    def planned(ops) -> None:
        assert [p.jvm for p in ops] == [jvm], ops

    # 1.5 s more: nothing more comes, no window twice
    with continuous(sql, query, jvm, closed, settle=1.5, planned=planned) as job:
        assert job.status == Status.RUNNING
        return list(job.result.rows())


@pytest.mark.parametrize("name", list(QUERIES))
def test_the_jvm_and_python_windows_emit_the_same_aggregates(sql, name):
    query, size, per_item = QUERIES[name]
    runs = {jvm: _windows(sql, query, jvm, ITEMS * (per_item or 1), size or 2) for jvm in (True, False)}
    for jvm, rows in runs.items():
        assert len({(r[0], r[1], r[2]) for r in rows}) == len(rows), rows  # each window of an item once
        longest = max(r[2] - r[1] for r in rows)
        assert sum(r[3] for r in rows if r[2] - r[1] == longest) == 19 * (per_item or 1), (jvm, rows)  # every row counted
        if size is not None:
            assert len(rows) == ITEMS * per_item and all((r[2] - r[1]).total_seconds() == size for r in rows), (jvm, rows)
    # the same aggregates per item and window size (the windows themselves are the clock's of each run)
    jvm, python = ({(r[0], (r[2] - r[1]).total_seconds(), *map(_exact, r[3:])) for r in rows} for rows in runs.values())
    if name == "cumulate":  # a run may have no 1-second windows (rows read in the second half of 2 s)
        jvm, python = ({r for r in s if r[1] == 2} for s in (jvm, python))
    assert jvm == python, f"\njvm {sorted(map(repr, jvm))}\npy  {sorted(map(repr, python))}"
    assert Counter(r[0] for r in jvm) == Counter({1: 1, 2: 1, 3: 1, 4: 1})  # (a HOP's two windows hold the same rows)


def test_values_per_item_are_those_of_the_rows(sql):
    """The tumbling window's row of item 2, computed here: NaN wins MAX, the FILTER keeps amounts
    above 1, AVG of a DECIMAL(10, 2) keeps Spark's scale."""
    (row,) = [r for r in _windows(sql, QUERIES["tumble"][0], True, ITEMS) if r[0] == 2]
    _, _, _, c, cb, s, a, lo, hi, sf, ap, la = row
    assert (c, cb, lo, la) == (6, 6, "ann", Decimal("-2.50"))
    assert math.isnan(s) and math.isnan(hi) and math.isnan(ap) and math.isnan(sf)
    assert a == Decimal("1.250000")  # (1.00 + 1.25 - 0.50 + 0.50 + 7.75 - 2.50) / 6
