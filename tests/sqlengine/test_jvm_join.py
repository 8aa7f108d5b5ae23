"""The JVM regular join (sqlengine/jvm/Join.java) against the Python one
(sqlengine/changelog/join.py) on the same input, micro-batch by micro-batch: the same changes
(kinds and rows) and the same final table, for INNER (with a condition beyond its keys too), LEFT,
RIGHT and FULL joins (with conditions on one side's fields and on both sides' too), semi and anti joins, over appends and over updates: matches that come and go again (an outer side's padded row
retracted at its first match and emitted again after its last), rows held twice, NULL keys (they
match nothing), keys of two columns, under a state TTL that holds and one that expires between
micro-batches (on both sides or one). (A join without keys stays in Python: Spark would count its
state as one key.) The final tables are also checked against the join computed here in plain
Python, and an unbounded job's expired rows are released on Spark's timeouts."""

from __future__ import annotations

from collections import Counter

import pytest

from planner.analysis.physical import JVM_SETTING, Physical
from planner.logical.joins import Join
from sqlengine.progress import JVM_KEYS
from tests.sqlengine.jvm_runs import assert_same, bids, continuous, run

pytestmark = pytest.mark.spark

# (item, bidder, price, amount, placed): bidders come and go from the groups of fewer than 3 bids;
# a NULL bidder; the same row twice (in one batch and across two)
BATCHES = [
    [(1, "ann", 3.0, "1.50", 1), (1, "bob", 5.0, "2.00", 2), (2, "cy", 1.0, "1.00", 3), (2, None, 2.0, "1.25", 4),
     (3, "ann", 6.0, "1.00", 5), (3, "ann", 6.0, "1.00", 5)],
    [(1, "ann", 4.0, "2.00", 6), (2, "dee", 0.5, "0.50", 7), (4, "eve", 7.0, "3.00", 8), (1, "ann", 1.0, "1.00", 9),
     (2, None, 6.0, "3.00", 10), (3, "ann", 6.0, "1.00", 5)],
    [(3, "fay", 8.0, "0.01", 11), (2, "cy", 9.0, "9.99", 12), (1, "bob", 2.0, "2.50", 13), (4, "gus", 6.0, "1.00", 14),
     (5, "cy", 1.5, "0.75", 15)],
]
FEW = "(SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder HAVING COUNT(*) < 3)"  # rows that come and go
MANY = "(SELECT bidder FROM bids GROUP BY bidder HAVING COUNT(*) >= 2)"  # rows that come
PER_ITEM = "(SELECT item, COUNT(*) AS c, MAX(price) AS hi FROM bids GROUP BY item)"  # updated rows

QUERIES = {
    "left join of appends with rows that come and go": f"SELECT b.item, b.bidder, b.price, f.n FROM bids b LEFT JOIN {FEW} f ON b.bidder = f.bidder",
    "right join": f"SELECT f.bidder, f.n, b.item, b.price FROM bids b RIGHT JOIN {FEW} f ON b.bidder = f.bidder",
    "full join of two aggregations": f"SELECT p.item, p.c, p.hi, f.bidder, f.n FROM {PER_ITEM} p FULL JOIN "
                                     f"(SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder HAVING COUNT(*) < 3 AND bidder <> 'ann') f "
                                     "ON p.c = f.n",
    "inner join over updates": f"SELECT p.item, p.c, p.hi, b.bidder, b.price FROM {PER_ITEM} p JOIN bids b ON p.item = b.item",
    # the condition beyond the key filters the join's output (its rows leave as the maximum rises)
    "inner join with a further condition": f"SELECT p.item, p.hi, b.bidder, b.price FROM {PER_ITEM} p JOIN bids b "
                                           "ON p.item = b.item AND b.price >= p.hi - 1",
    "keys of two columns": "SELECT a.item, a.bidder, a.k, b.price FROM (SELECT item, bidder, COUNT(*) AS k FROM bids GROUP BY item, bidder) a "
                           "LEFT JOIN bids b ON a.item = b.item AND a.bidder = b.bidder",
    # conditions on one side's fields: a row that fails its side's matches nothing (its key made
    # NULL on the JVM); the null-supplying side's is a filter on its input
    "left join with a condition on each side": f"SELECT b.item, b.bidder, b.price, f.n FROM bids b LEFT JOIN {FEW} f "
                                               "ON b.bidder = f.bidder AND b.price > 2 AND f.n < 2",
    "full join with a condition on each side": f"SELECT p.item, p.c, p.hi, f.bidder, f.n FROM {PER_ITEM} p FULL JOIN {FEW} f "
                                               "ON p.c = f.n AND p.hi > 6 AND f.bidder <> 'cy'",
    # conditions on both sides' fields: they decide per candidate pair whether it matches (Spark's
    # expressions on the JVM, planner.logical.evaluate in Python)
    "left join with a condition on both sides": f"SELECT b.item, b.bidder, b.price, f.n FROM bids b LEFT JOIN {FEW} f "
                                                "ON b.bidder = f.bidder AND b.price > f.n * 2",
    "full join with a condition on both sides": f"SELECT p.item, p.c, p.hi, f.bidder, f.n FROM {PER_ITEM} p FULL JOIN {FEW} f "
                                                "ON p.c = f.n AND ABS(p.hi - f.n) < 6",
    "semi join with a condition on both sides": f"SELECT item, bidder, price FROM bids b WHERE EXISTS "
                                                f"(SELECT 1 FROM {FEW} f WHERE f.bidder = b.bidder AND f.n * 3 > b.price)",
    "anti join with a condition on both sides": f"SELECT item, bidder, price FROM bids b WHERE NOT EXISTS "
                                                f"(SELECT 1 FROM {FEW} f WHERE f.bidder = b.bidder AND f.n * 3 > b.price)",
    "semi join": f"SELECT item, bidder, price FROM bids WHERE bidder IN (SELECT bidder FROM {FEW})",
    # a bidder's second bid makes it many: its earlier bids leave the anti join
    "anti join": f"SELECT item, bidder, price FROM bids b WHERE NOT EXISTS (SELECT 1 FROM {MANY} m WHERE m.bidder = b.bidder)",
    "anti join with a condition on its left": f"SELECT item, bidder, price FROM bids b WHERE NOT EXISTS "
                                              f"(SELECT 1 FROM {MANY} m WHERE m.bidder = b.bidder AND b.price < 6)",
}


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory):
    return bids(spark, tmp_path_factory.mktemp("jvm-join"), BATCHES)


def _joins(sql, query: str, jvm: bool, ttl: str | None = None) -> list[Physical]:
    """How the plan runs its regular joins, the JVM operators on or off (``ttl``: the state TTL)."""
    settings = sql.engine.planner.settings
    settings[JVM_SETTING] = "true" if jvm else "false"
    if ttl:
        settings["table.exec.state.ttl"] = ttl
    try:
        analysis = sql.outcome(query).analysis
    finally:
        settings.pop(JVM_SETTING, None)
        settings.pop("table.exec.state.ttl", None)
    return [analysis.physical[n.node_id] for n in analysis.plans[0].walk() if type(n) is Join]


def _run(sql, query: str, jvm: bool, ttl: str | None = None):
    joins = _joins(sql, query, jvm, ttl)
    assert joins and all(p.changelog and p.jvm == jvm for p in joins), joins
    changes, final = run(sql, query, jvm, ttl)
    return Counter(changes), final


@pytest.mark.parametrize("name", list(QUERIES))
def test_the_jvm_and_python_joins_emit_the_same_changes(sql, name):
    on_jvm, in_python = _run(sql, QUERIES[name], True), _run(sql, QUERIES[name], False)
    assert_same(on_jvm, in_python)
    assert any(change[0] == "-D" for change in on_jvm[0].elements()), "nothing was retracted"


def _expected() -> tuple[Counter, Counter]:
    """The left join's and the anti join's final tables, computed here from all the bids."""
    rows = [r for batch in BATCHES for r in batch]
    counts = Counter(r[1] for r in rows if r[1] is not None)
    few = {b: n for b, n in counts.items() if n < 3}
    left = Counter((r[0], r[1], r[2], few.get(r[1])) for r in rows)
    anti = Counter((r[0], r[1], r[2]) for r in rows if r[1] is None or counts[r[1]] < 2)
    return left, anti


def test_the_jvm_join_ends_in_the_join_computed_here(sql):
    left, anti = _expected()
    # a NULL key matches nothing: its row stays padded, and in the anti join
    assert left[(2, None, 2.0, None)] == 1 and anti[(2, None, 6.0)] == 1 and anti[(2, "dee", 0.5)] == 1
    assert _run(sql, QUERIES["left join of appends with rows that come and go"], True)[1] == left
    assert _run(sql, QUERIES["anti join"], True)[1] == anti


@pytest.mark.parametrize("jvm", [True, False], ids=["jvm", "python"])
def test_a_retracted_row_holding_nan_leaves_the_join(spark, tmp_path, jvm):
    """Rows compare as Flink's binary rows do (NaN equals NaN), on the JVM and in Python (every
    NaN read is one object, which Python's tuples and dicts find by identity): item 1's minimum is
    NaN, then 1.0, and the join drops the NaN row it held."""
    nan = float("nan")
    sql = bids(spark, tmp_path, [[(1, "ann", nan, "1.00", 1), (2, "bob", 2.0, "1.00", 2)], [(1, "cy", 1.0, "1.00", 3)]])
    query = ("SELECT b.item, b.bidder, m.lo FROM bids b LEFT JOIN (SELECT item, MIN(price) AS lo FROM bids GROUP BY item) m "
             "ON b.item = m.item")
    changes, final = _run(sql, query, jvm)
    assert final == Counter({(1, "ann", 1.0): 1, (1, "cy", 1.0): 1, (2, "bob", 2.0): 1})
    assert any(c[:3] == ("-D", 1, "ann") and c[3] != c[3] for c in changes), "the NaN row was not retracted"


# a TTL that holds is checked on the join with the most to keep (a condition on both sides, both
# sides counted); one that expires on each kind of join (CI's time budget)
UNDER_TTL = [("left join of appends with rows that come and go", "1 ms"), ("full join with a condition on both sides", "1 h"),
             ("full join with a condition on both sides", "1 ms"), ("anti join", "1 ms")]


@pytest.mark.parametrize("name,ttl", UNDER_TTL)
def test_under_a_state_ttl_the_jvm_and_python_joins_emit_the_same_changes(sql, name, ttl):
    """A TTL that holds changes nothing; one of 1 ms has expired every row (of the join, and of
    the aggregation below it) by the next micro-batch: a row matches only its own batch's, the
    retraction of an expired row is dropped, nothing is retracted for it. Both say so."""
    query = QUERIES[name]
    on_jvm, in_python = _run(sql, query, True, ttl), _run(sql, query, False, ttl)
    assert_same(on_jvm, in_python)
    if ttl == "1 h":
        assert on_jvm == _run(sql, query, True)
    else:
        assert on_jvm[1] != _run(sql, query, True)[1], "nothing expired"


def test_a_ttl_on_one_side_expires_only_that_sides_rows(sql):
    """STATE_TTL on the right side only: its rows are gone by the next micro-batch, the left's stay.
    A right row's retraction after it expired is dropped (its left rows keep their match), and a
    right row that comes later matches the left rows of earlier batches."""
    query = QUERIES["left join of appends with rows that come and go"].replace("SELECT ", "SELECT /*+ STATE_TTL('f' = '1 ms') */ ", 1)
    on_jvm, in_python = _run(sql, query, True), _run(sql, query, False)
    assert_same(on_jvm, in_python)
    final, without_ttl = on_jvm[1], _run(sql, QUERIES["left join of appends with rows that come and go"], True)[1]
    # cy's count of 1 (batch 1) leaves in batch 3 (its third bid): without a TTL cy's first bid is
    # padded again; under it the retraction finds nothing held, and the match stays
    assert without_ttl[(2, "cy", 1.0, None)] == 1 and final[(2, "cy", 1.0, 1)] == 1
    # bob's count becomes 2 in batch 3: it matches bob's bid of batch 1, held on the left
    assert final[(1, "bob", 5.0, 2)] == 1


def test_an_unbounded_job_releases_expired_rows_on_spark_timeouts(sql):
    """With a TTL of 1 s, every key of the JVM join holding rows is released about a second after
    its last write, without input (Spark's processing-time timeouts), and nothing is retracted."""
    query = ("SELECT b.item, b.bidder, i.n FROM endless_bids b "
             "LEFT JOIN (SELECT item, COUNT(*) AS n FROM endless_bids GROUP BY item) i ON b.item = i.item")

    def join_keys(job) -> list[int]:
        return [o.rows for s in job.history for o in s.operators if o.name == JVM_KEYS]

    def planned(ops: list[Physical]) -> None:  # the join and the aggregation under it, on the JVM
        assert [p.jvm for p in ops] == [True, True], ops

    with continuous(sql, query, True, lambda job: join_keys(job)[-1:] == [0], ttl="1 s", planned=planned) as job:
        held = join_keys(job)
        assert max(held) == 5 and held[-1] == 0, held  # the 5 items' keys held, then all released
        # every bid with its item's count (one micro-batch read them all), none retracted since
        rows = [r for batch in BATCHES for r in batch]
        counts = Counter(r[0] for r in rows)
        assert Counter(job.result.rows()) == Counter((r[0], r[1], counts[r[0]]) for r in rows)
