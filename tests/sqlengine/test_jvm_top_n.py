"""The JVM Top-N (sqlengine/jvm/TopN.java) against the Python one (sqlengine/changelog/topn.py)
on the same input, micro-batch by micro-batch: the same changes (kinds and rows) and the same
final table, for each rank function, with and without the rank column, ORDER BY ... LIMIT, over
appends and over updates (each ranking strategy), a state TTL that expires, and the values whose order Java and Python could disagree on (NULLs,
NaN, -0.0, strings beyond the BMP, decimals, timestamps). Each query's final table is also
checked against the ranking computed here in plain Python (Flink's: NULLs first ascending, ties
in arrival order)."""

from __future__ import annotations

import math
from collections import Counter
from decimal import Decimal

import pytest

from planner.logical.operators import GroupAggregate
from tests.sqlengine.helpers import Sql, multiset, ts
from tests.sqlengine.jvm_runs import COLUMNS, assert_same, bids, only_on_jvm, run

pytestmark = pytest.mark.spark

NAN = float("nan")
# (item, bidder, price, amount, placed): 'ｚ' (U+FF5A) is above '𝒜' (U+1D49C) in UTF-16 code units,
# below it in code points (Python's and Flink's order)
BATCHES = [
    [(1, "ann", 3.0, "1.50", 1), (1, "bob", 5.0, "2.00", 2), (2, "𝒜", 1.0, "1.00", 3), (2, "ｚ", NAN, "1.25", 4),
     (1, "cy", None, None, 5)],
    [(1, "dee", 5.0, "2.00", 6), (2, "ann", -0.0, "0.50", 7), (2, "bob", 0.0, "0.50", 8), (3, "eve", 7.0, "3.00", 9),
     (1, "fay", 9.0, "9.99", 10)],
    [(1, "gus", 4.0, "2.00", 11), (3, "hal", 7.0, "3.00", 12), (2, "ivy", NAN, "7.75", 13), (3, None, 8.0, "0.01", 14)],
    # bidders again: their counts and sums move (the rankings over updates)
    [(1, "ann", 2.0, "1.00", 15), (1, "ann", 1.0, "1.00", 16), (2, "ivy", 3.0, "2.50", 17), (1, "bob", 6.0, "-1.00", 18),
     (3, "hal", 5.0, "1.00", 19)],
]


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    return bids(spark, tmp_path_factory.mktemp("jvm-top-n"), BATCHES)


def _top(fn: str, order: str, columns: str = "item, bidder, price, r", n: int = 2) -> str:
    return (f"SELECT {columns} FROM (SELECT *, {fn}() OVER (PARTITION BY item ORDER BY {order}) AS r FROM bids) "
            f"WHERE r <= {n}")


QUERIES = {
    "row_number by price desc": _top("ROW_NUMBER", "price DESC"),
    "rank by price": _top("RANK", "price"),
    "dense_rank by bidder desc": _top("DENSE_RANK", "bidder DESC"),
    "row_number by bidder, no rank column": _top("ROW_NUMBER", "bidder", "item, bidder, price"),
    "rank by amount desc then time": _top("RANK", "amount DESC, placed", "item, amount, placed, r", 3),
    "order by limit": "SELECT item, bidder, price FROM bids ORDER BY price DESC LIMIT 3",
    # over updates: UpdateFastStrategy (an upsert whose order only improves), RetractStrategy
    "top bidders by count": "SELECT item, bidder, n, r FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY n DESC) AS r "
                            "FROM (SELECT item, bidder, COUNT(*) AS n FROM bids GROUP BY item, bidder)) WHERE r <= 3",
    "top bidders by sum": "SELECT item, bidder, s, r FROM (SELECT *, RANK() OVER (PARTITION BY item ORDER BY s DESC) AS r "
                          "FROM (SELECT item, bidder, SUM(amount) AS s FROM bids GROUP BY item, bidder)) WHERE r <= 2",
    "limit over a sum": "SELECT bidder, s FROM (SELECT bidder, SUM(amount) AS s FROM bids GROUP BY bidder) ORDER BY s DESC LIMIT 2",
}


def _run(sql: Sql, query: str, jvm: bool, ttl: str | None = None):
    def planned(changelog):
        rankings = [p for p in changelog if p.strategy is not None]
        assert [p.jvm for p in rankings] == [jvm], rankings

    # only the rankings on the JVM: an aggregation below one runs in Python in both runs, so that
    # the ranking reads the same changes in the same order (its order decides ties)
    with only_on_jvm(lambda node: not isinstance(node, GroupAggregate)):
        changes, final = run(sql, query, jvm, ttl, planned)
    return multiset(changes), final


@pytest.mark.parametrize("name", list(QUERIES))
def test_the_jvm_and_python_operators_emit_the_same_changes(sql, name):
    on_jvm, in_python = _run(sql, QUERIES[name], True), _run(sql, QUERIES[name], False)
    assert_same(on_jvm, in_python)
    assert sum(on_jvm[0].values()) > sum(on_jvm[1].values()), "no micro-batch changed an earlier one's ranking"


def _flink_key(value, desc: bool):
    """Flink's order of one value: NULLs smallest, NaN largest; strings by code point."""
    if value is None:
        key = (0,)
    elif isinstance(value, float) and math.isnan(value):
        key = (2,)
    else:
        key = (1, value)
    return _Desc(key) if desc else key


class _Desc:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return other.v < self.v

    def __eq__(self, other):
        return self.v == other.v


def test_the_final_rankings_are_flinks(sql):
    rows = [dict(zip(COLUMNS, r, strict=True)) for batch in BATCHES for r in batch]
    want: Counter = Counter()
    for item in {r["item"] for r in rows}:
        mine = sorted((r for r in rows if r["item"] == item), key=lambda r: _flink_key(r["bidder"], True))  # stable: arrival
        for rank, r in enumerate(mine[:2], 1):
            want[(item, r["bidder"], rank)] += 1
    _, final = _run(sql, _top("ROW_NUMBER", "bidder DESC", "item, bidder, r"), True)
    assert final == want


def test_a_ttl_that_expires_between_micro_batches_forgets_on_both(sql):
    """With a 1 ms TTL every partition has expired by the next micro-batch: each batch ranks its
    own rows afresh, nothing is retracted, and both implementations say so."""
    query = _top("ROW_NUMBER", "price DESC")
    on_jvm, in_python = _run(sql, query, True, "1 ms"), _run(sql, query, False, "1 ms")
    assert on_jvm == in_python
    kinds = Counter(k[0] for k in on_jvm[0].elements())
    assert set(kinds) == {"+I"} and kinds["+I"] == sum(on_jvm[1].values())


def test_a_bounded_job_waiting_on_the_watermark_ends_with_a_ttl(sql):
    """With a TTL an unbounded job releases idle partitions on Spark's processing-time timeouts,
    which make Spark run batches without input for ever: a bounded job, here one whose window
    waits on the watermark, has none, and ends."""
    query = ("SELECT item, n, r FROM (SELECT item, n, ROW_NUMBER() OVER (PARTITION BY item ORDER BY n DESC) AS r FROM "
             "(SELECT item, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE timed_bids, DESCRIPTOR(placed), INTERVAL '5' SECOND)) "
             "GROUP BY item, window_start, window_end)) WHERE r <= 1")
    on_jvm, in_python = _run(sql, query, True, "1 h"), _run(sql, query, False, "1 h")
    assert on_jvm == in_python
    assert on_jvm[1] == multiset([(1, 3, 1), (2, 2, 1), (3, 2, 1)])


def test_an_unbounded_job_with_a_ttl_runs_batches_on_the_clock(sql, tmp_path):
    """...and an unbounded one, whose timeouts need batches without input, starts one every
    200 ms (as processing-time timers do) instead of back to back."""
    from sqlengine.translate import translate

    settings = sql.engine.planner.settings
    query = _top("ROW_NUMBER", "price DESC").replace("FROM bids", "FROM endless_bids")
    for ttl, timers in ((None, False), ("1 h", True)):
        if ttl:
            settings["table.exec.state.ttl"] = ttl
        try:
            analysis = sql.outcome(query).analysis
        finally:
            settings.pop("table.exec.state.ttl", None)
        translated = translate(analysis.plans[0], analysis, sql.engine.spark, job_dir=tmp_path / (ttl or "none"))
        assert not analysis.bounded and translated.processing_timers == timers


def test_decimal_and_timestamp_order_keys(sql):
    _, final = _run(sql, QUERIES["rank by amount desc then time"], True)
    assert (1, Decimal("9.99"), ts(10), 1) in final
    assert (3, Decimal("3.00"), ts(9), 1) in final and (3, Decimal("3.00"), ts(12), 2) in final
