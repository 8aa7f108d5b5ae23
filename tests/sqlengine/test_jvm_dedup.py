"""The JVM deduplication (sqlengine/jvm/Dedup.java) against the Python one
(sqlengine/changelog/dedup.py) on the same input, micro-batch by micro-batch: the same changes
(kinds and rows) and the same final table, keeping the first or the last row on event time and on
processing time, with and without the rank column, under a state TTL (which is what makes an
insert-only deduplication a changelog operator) that holds or expires. The final tables are also
checked against Flink's rule computed here: keep-last takes the latest time, a tie going to the
later arrival; keep-first the earliest, a tie to the earlier one."""

from __future__ import annotations

from collections import Counter

import pytest

from planner.logical.operators import Deduplicate
from tests.sqlengine.helpers import Sql, multiset, ts
from tests.sqlengine.jvm_runs import COLUMNS, assert_same, bids, run

pytestmark = pytest.mark.spark

# (item, bidder, price, amount, placed); ties on `placed` within a key, within and across batches,
# and rows older than the one kept arriving later (nothing here is behind the 1-s watermark delay)
BATCHES = [
    [(1, "ann", 3.0, "1.50", 5), (1, "bob", 5.0, "2.00", 5), (2, "cy", 1.0, "1.00", 3), (2, "dee", 2.0, "1.25", 2)],
    [(1, "eve", 4.0, "2.00", 5), (2, "fay", 0.5, "0.50", 4), (3, "gus", 7.0, "3.00", 6), (1, "hal", 1.0, "1.00", 4.5),
     (2, "ann", 6.0, "3.00", 6.5)],
    [(3, "ivy", 8.0, "0.01", 6), (2, "jo", 9.0, "9.99", 7), (1, "kim", 2.0, "2.50", 8), (3, "lu", 6.0, "1.00", 5.5),
     (3, "bob", 1.5, "0.75", 9)],
]


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    runner = bids(spark, tmp_path_factory.mktemp("jvm-dedup"), BATCHES)
    # the same files with a processing-time attribute (its rows' arrival is their order)
    source = runner.engine.catalog.get_table("bids").options
    options = ", ".join(f"'{k}' = '{v}'" for k, v in source.items())
    runner.ddl(f"CREATE TABLE proc_bids (item BIGINT, bidder STRING, price DOUBLE, amount DECIMAL(10, 2), "
               f"placed TIMESTAMP(3), ptime AS PROCTIME()) WITH ({options})")
    return runner


def _dedup(order: str, table: str = "timed_bids", columns: str = "item, bidder, placed", key: str = "item") -> str:
    return (f"SELECT {columns} FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY {key} ORDER BY {order}) AS r "
            f"FROM {table}) WHERE r = 1")


QUERIES = {
    "keep last on event time": _dedup("placed DESC"),
    "keep first on event time": _dedup("placed"),
    "keep last, rank column": _dedup("placed DESC", columns="item, bidder, price, r"),
    "keep last by a string key": _dedup("placed DESC", columns="bidder, item, amount", key="bidder"),
    "keep last on processing time": _dedup("ptime DESC", "proc_bids", "item, bidder, price"),
    "keep first on processing time": _dedup("ptime", "proc_bids", "item, bidder, price, r"),
}


def _run(sql: Sql, query: str, jvm: bool, ttl: str = "1 h"):
    def planned(changelog):
        assert [p.jvm for p in changelog] == [jvm], changelog

    changes, final = run(sql, query, jvm, ttl, planned)
    return multiset(changes), final


@pytest.mark.parametrize("name", list(QUERIES))
def test_the_jvm_and_python_operators_emit_the_same_changes(sql, name):
    on_jvm, in_python = _run(sql, QUERIES[name], True), _run(sql, QUERIES[name], False)
    assert_same(on_jvm, in_python)
    if "processing" not in name:
        assert sum(on_jvm[0].values()) > sum(on_jvm[1].values()), "no micro-batch replaced an earlier one's row"


def _flink(keep_last: bool) -> Counter:
    """Flink's rowtime deduplication, row by row in arrival order."""
    kept: dict = {}
    for batch in BATCHES:
        for r in batch:
            row = dict(zip(COLUMNS, r, strict=True))
            old = kept.get(row["item"])
            if old is None or (row["placed"] >= old["placed"] if keep_last else row["placed"] < old["placed"]):
                kept[row["item"]] = row
    return multiset([(r["item"], r["bidder"], ts(r["placed"])) for r in kept.values()])


def test_the_final_rows_are_flinks(sql):
    assert _run(sql, QUERIES["keep last on event time"], True)[1] == _flink(True)
    assert _run(sql, QUERIES["keep first on event time"], True)[1] == _flink(False)
    # item 1's tie at 5 s: keep-last took eve (the later arrival) until kim came at 8 s; keep-first
    # kept ann (the earlier) until hal came at 4.5 s
    assert (1, "kim", ts(8)) in _flink(True) and (1, "hal", ts(4.5)) in _flink(False)


def test_a_ttl_that_expires_between_micro_batches_forgets_on_both(sql):
    """With a 1 ms TTL every key has expired by the next micro-batch: each batch's rows come
    through afresh (+I only), and both implementations say so."""
    query = QUERIES["keep last on event time"]
    on_jvm, in_python = _run(sql, query, True, "1 ms"), _run(sql, query, False, "1 ms")
    assert on_jvm == in_python
    kinds = Counter(k[0] for k in on_jvm[0].elements())
    assert set(kinds) == {"+I"} and kinds["+I"] == sum(len({r[0] for r in batch}) for batch in BATCHES)  # each batch's keys


def test_a_floating_key_stays_in_python(sql):
    """Spark's grouping and Python's dict disagree on -0.0 and NaN: no JVM twin for such keys."""
    settings = sql.engine.planner.settings
    settings["table.exec.state.ttl"] = "1 h"
    try:
        analysis = sql.outcome(_dedup("placed DESC", columns="price, bidder", key="price")).analysis
    finally:
        settings.pop("table.exec.state.ttl", None)
    [dedup] = [p for p in analysis.physical.values() if p.changelog]
    assert not dedup.jvm
    nodes = [n for n in analysis.plans[0].walk() if isinstance(n, Deduplicate)]
    assert len(nodes) == 1
