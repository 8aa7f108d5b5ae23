"""The JVM group aggregation (sqlengine/jvm/GroupAgg.java) against the Python one
(sqlengine/changelog/aggregate.py) on the same input, micro-batch by micro-batch: the same
changes (kinds and rows) and the same final table, for COUNT(*), COUNT, SUM, AVG, MIN and MAX with
and without FILTER and DISTINCT, over appends (an aggregation another one reads) and over updates (groups
that change, and groups whose last row leaves: -D), with and without GROUP BY, and the values Java and Python could compute or order differently: NaN (one value,
retracted as any other), -0.0, floating sums in arrival order, decimal sums and averages at the
result's scale, BIGINT sums that wrap and averages that must not, strings beyond the BMP; and
under a state TTL in an unbounded job (a bounded one keeps it in Python), one that holds and one
that expires every group between micro-batches. The final tables are also checked against the
aggregation computed here in plain Python."""

from __future__ import annotations

import math
from collections import Counter
from decimal import Decimal

import pytest

from planner.analysis.physical import Physical
from tests.sqlengine.helpers import Sql, multiset
from tests.sqlengine.jvm_runs import BIDS, bids, continuous, run

pytestmark = pytest.mark.spark

NAN = float("nan")
BIG = 9_223_372_036_854_775_000  # near BIGINT's largest: two of them overflow 64 bits
# (item, bidder, price, amount, placed): 'ｚ' (U+FF5A) is above '𝒜' (U+1D49C) in UTF-16 code units,
# below it in code points (Python's and Flink's order)
BATCHES = [
    [(1, "ann", 3.0, "1.50", 1), (1, "bob", 5.0, "2.00", 2), (2, "𝒜", 1.0, "1.00", 3), (2, "ｚ", NAN, "1.25", 4),
     (1, "cy", None, None, 5)],
    [(1, "dee", 5.0, "2.00", 6), (2, "ann", -0.0, "-0.50", 7), (2, "bob", 0.0, "0.50", 8), (3, "eve", 0.1, "3.00", 9),
     (1, "fay", 0.2, "9.99", 10)],
    [(1, "gus", 0.3, "2.00", 11), (3, "hal", 7.0, "3.00", 12), (2, "ivy", NAN, "7.75", 13), (3, None, 8.0, "0.01", 14)],
    [(1, "ann", 2.0, "1.00", 15), (1, "ann", 1e16, "1.00", 16), (2, "ivy", 3.0, "-2.50", 17), (4, "bob", 6.0, "-1.00", 18),
     (3, "hal", 5.0, "1.00", 19)],
]
CALLS = ("COUNT(*) AS c, COUNT(m) AS cm, SUM(m) AS s, AVG(m) AS a, MIN(m) AS lo, MAX(m) AS hi, "
         "SUM(m) FILTER (WHERE n > 1) AS sf")

QUERIES = {
    # the inner aggregation's updates move items between the outer groups: -U/+U and -D
    "prices regrouped by count": f"SELECT n, {CALLS} FROM (SELECT item, COUNT(*) AS n, MAX(price) AS m FROM bids GROUP BY item) GROUP BY n",
    "sums of prices regrouped": f"SELECT n, {CALLS} FROM (SELECT item, COUNT(*) AS n, SUM(price) AS m FROM bids GROUP BY item) GROUP BY n",
    "decimals regrouped": f"SELECT n, {CALLS} FROM (SELECT item, COUNT(*) AS n, SUM(amount) AS m FROM bids GROUP BY item) GROUP BY n",
    "bigints regrouped": f"SELECT n, {CALLS} FROM (SELECT item, COUNT(*) AS n, SUM(item) - 2 AS m FROM bids GROUP BY item) GROUP BY n",
    "bigint sums past 64 bits": "SELECT n >= 4 AS many, SUM(m) AS s, AVG(m) AS a, COUNT(*) AS c FROM "
                                f"(SELECT item, COUNT(*) AS n, MAX(item) + {BIG} AS m FROM bids GROUP BY item) GROUP BY n >= 4",
    "strings regrouped": "SELECT n, MIN(bidder) AS lo, MAX(bidder) AS hi, COUNT(bidder) AS c FROM "
                         "(SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder) GROUP BY n",
    "no group by": "SELECT COUNT(*) AS c, SUM(n) AS s, MAX(n) AS hi, MIN(lo) AS lo FROM "
                   "(SELECT bidder, COUNT(*) AS n, MIN(placed) AS lo FROM bids GROUP BY bidder)",
    # over appends, read by another aggregation: every call of its own on the JVM too
    "appends with filters": "SELECT c, COUNT(*) AS k FROM (SELECT item, COUNT(*) AS c, COUNT(bidder) FILTER (WHERE price > 2) AS f, "
                            "MIN(price) AS lo, MAX(amount) AS hi, AVG(amount) AS a, SUM(price) AS s FROM bids GROUP BY item) GROUP BY c",
}
# DISTINCT over updates: a value leaves its group only when its last copy does
QUERIES["distinct values regrouped"] = (
    "SELECT n, COUNT(DISTINCT m) AS cd, SUM(DISTINCT m) AS sd, AVG(DISTINCT m) AS ad, SUM(DISTINCT d) AS sdd, "
    "AVG(DISTINCT d) AS adv, COUNT(DISTINCT m) FILTER (WHERE n > 1) AS cdf, MIN(DISTINCT m) AS lo FROM "
    "(SELECT item, COUNT(*) AS n, MIN(item) - item % 2 AS m, MAX(amount) AS d FROM bids GROUP BY item) GROUP BY n")
# items that move between two groups, several in each: a retracted extreme falls back to the next
QUERIES["prices regrouped by size"] = QUERIES["prices regrouped by count"].replace("SELECT n,", "SELECT n >= 4 AS many,").replace(
    "GROUP BY n", "GROUP BY n >= 4").replace("WHERE n > 1", "WHERE n > 4")
# one aggregation over appends, alone: a HAVING on its result makes it a changelog operator
ALONE = {"appends: every call": "SELECT item, COUNT(*) AS c, COUNT(bidder) FILTER (WHERE price > 2) AS f, MIN(price) AS lo, "
                                "MAX(bidder) AS hi, AVG(amount) AS a, SUM(price) AS s, AVG(price) AS ap FROM bids GROUP BY item "
                                "HAVING COUNT(*) > 1",
         # DISTINCT over appends: strings, integers and decimals, a bidder seen again, NULLs
         "appends: distinct calls": "SELECT item, COUNT(*) AS c, COUNT(DISTINCT bidder) AS cb, SUM(DISTINCT CHAR_LENGTH(bidder)) AS sl, "
                                    "AVG(DISTINCT amount) AS a, COUNT(DISTINCT amount) FILTER (WHERE amount > 1) AS cf FROM bids "
                                    "GROUP BY item HAVING COUNT(*) > 1"}


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    runner = bids(spark, tmp_path_factory.mktemp("jvm-group-aggregate"), BATCHES)
    # the same files, one micro-batch each, in an unbounded job (new files looked for every second)
    path = runner.engine.catalog.get_table("bids").options["path"]
    runner.ddl(f"CREATE TABLE watched_bids {BIDS.format('')} WITH ('connector' = 'filesystem', 'path' = '{path}', "
               "'format' = 'json', 'source.max-files-per-trigger' = '1', 'source.monitor-interval' = '1 s')")
    return runner


def _run(sql: Sql, query: str, jvm: bool, ttl: str | None = None):
    def planned(changelog):
        assert changelog and [p.jvm for p in changelog] == [jvm] * len(changelog), changelog

    return run(sql, query, jvm, ttl, planned)


def _exact(value):
    """A value compared to the bit: a float by its bits (NaN equals NaN, -0.0 is not 0.0), a
    decimal with its scale."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else value.hex()
    if isinstance(value, Decimal):
        return str(value)
    return value


def _changes(changes):
    return Counter(tuple(_exact(v) for v in c) for c in changes)


def _comparable(rows):
    """Rows as a multiset in which NaN equals NaN (the rows' own == says it never does)."""
    return multiset(tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in r) for r in rows)


@pytest.mark.parametrize("name", [*QUERIES, *ALONE])
def test_the_jvm_and_python_operators_emit_the_same_changes(sql, name):
    query = {**QUERIES, **ALONE}[name]
    on_jvm, in_python = _run(sql, query, True), _run(sql, query, False)
    assert _changes(on_jvm[0]) == _changes(in_python[0]), (
        f"changes differ:\njvm {sorted(map(repr, on_jvm[0]))}\npy  {sorted(map(repr, in_python[0]))}")
    assert _comparable(on_jvm[1].elements()) == _comparable(in_python[1].elements())
    kinds = Counter(c[0] for c in on_jvm[0])
    assert set(kinds) - {"+I"}, kinds  # micro-batches changed earlier rows (a HAVING may drop half of a pair)


def _flink(rows):
    """The outer aggregation of "prices regrouped by count", in plain Python: per item its count
    and maximum price (NaN above every number), then per count the calls of CALLS."""
    items: dict[int, list[float | None]] = {}
    for r in rows:
        items.setdefault(r[0], []).append(r[2])
    groups: dict[int, list[float | None]] = {}
    for prices in items.values():
        known = [p for p in prices if p is not None]
        top = (NAN if any(math.isnan(p) for p in known) else max(known)) if known else None
        groups.setdefault(len(prices), []).append(top)
    out = Counter()
    for n, ms in groups.items():
        vs = [m for m in ms if m is not None]
        nan = any(math.isnan(v) for v in vs)
        total = sum(vs) if vs else None
        lo = min(vs, key=lambda v: (math.isnan(v), v)) if vs else None  # NaN above every number
        hi = (NAN if nan else max(vs)) if vs else None
        out[(n, len(ms), len(vs), total, None if not vs else total / len(vs), lo, hi, total if n > 1 and vs else None)] += 1
    return _comparable(out.elements())


def test_the_final_table_is_the_aggregation_of_the_final_input(sql):
    _, final = _run(sql, QUERIES["prices regrouped by count"], True)
    assert _comparable(final.elements()) == _flink([r for batch in BATCHES for r in batch])


def test_distinct_calls_are_over_each_groups_distinct_values(sql):
    """The final table of "appends: distinct calls", computed here from the bids."""
    _, final = _run(sql, ALONE["appends: distinct calls"], True)
    rows = [r for batch in BATCHES for r in batch]
    expected = Counter()
    for item in {r[0] for r in rows}:
        mine = [r for r in rows if r[0] == item]
        if len(mine) <= 1:
            continue
        bidders = {r[1] for r in mine if r[1] is not None}
        lengths = {len(r[1]) for r in mine if r[1] is not None}
        amounts = {Decimal(r[3]) for r in mine if r[3] is not None}
        costly = {Decimal(r[3]) for r in mine if r[3] is not None and Decimal(r[3]) > 1}
        average = sum(amounts) / len(amounts)
        expected[(item, len(mine), len(bidders), sum(lengths), average.quantize(Decimal("0.000001"), rounding="ROUND_HALF_UP"),
                  len(costly))] += 1
    got = Counter(tuple(v.quantize(Decimal("0.000001")) if isinstance(v, Decimal) else v for v in r) for r in final.elements())
    assert got == expected
    assert any(len({r[1] for r in rows if r[0] == i}) < sum(1 for r in rows if r[0] == i) for i in (1, 2))  # repeated bidders


def test_a_nan_maximum_moves_between_groups_and_an_emptied_group_is_deleted(sql):
    changes, final = _run(sql, QUERIES["prices regrouped by count"], True)
    # item 2's maximum is NaN from the first batch on; it moves from n=2 to 4, 5 and 6, and
    # each group it leaves empty is deleted with its NaN
    left = [c[1] for c in changes if c[0] == "-D" and isinstance(c[7], float) and math.isnan(c[7])]
    assert left == [2, 4, 5]
    nan_groups = [r for r in final.elements() if r[6] == "NaN"]  # (the rows normalised: NaN as a string)
    assert [r[0] for r in nan_groups] == [6]


def test_a_retracted_extreme_falls_back_to_the_next(sql):
    changes, _ = _run(sql, QUERIES["prices regrouped by size"], True)
    few = [("NaN" if math.isnan(c[7]) else c[7]) for c in changes if c[0] in ("+I", "+U") and c[1] is False]
    assert few == ["NaN", 0.1, 8.0, 6.0]  # the NaN maximum retracted: the next value is the maximum
    many = [c[6] for c in changes if c[0] in ("+I", "+U") and c[1] is True]
    assert many == [5.0, 5.0, 8.0]  # the minimum 5.0 (item 1's) retracted, with item 3's 8.0 added


def test_bigint_sums_wrap_and_their_averages_do_not(sql):
    _, final = _run(sql, QUERIES["bigint sums past 64 bits"], True)
    items = Counter(r[0] for batch in BATCHES for r in batch)
    for many, s, a, c in final.elements():
        ms = [item + BIG for item, k in items.items() if (k >= 4) == many]
        assert c == len(ms) and a == sum(ms) // len(ms)
        assert s == ((sum(ms) + 2**63) % 2**64) - 2**63
    assert max(c for *_, c in final.elements()) > 1  # a sum past 64 bits


def test_decimal_sums_exact_and_averages_rounded_half_up_at_the_result_scale(sql):
    _, final = _run(sql, QUERIES["decimals regrouped"], True)
    items: dict[int, list[Decimal]] = {}
    for item, _, _, amount, _ in (r for batch in BATCHES for r in batch):
        items.setdefault(item, []).extend([Decimal(amount)] if amount is not None else [])
    groups: dict[int, list[Decimal]] = {}
    for item, amounts in items.items():
        n = sum(1 for batch in BATCHES for r in batch if r[0] == item)
        groups.setdefault(n, []).append(sum(amounts))
    for n, c, cm, total, average, *_ in final.elements():
        assert (c, cm, total) == (len(groups[n]), len(groups[n]), sum(groups[n]))
        exact = sum(groups[n]) / len(groups[n])
        assert average == exact.quantize(Decimal(1).scaleb(average.as_tuple().exponent), rounding="ROUND_HALF_UP"), (average, exact)


def test_an_unchanged_row_is_not_emitted_again(sql):
    """Every batch moves an item's count, yet the lowest item stays 1: Flink's GroupAggFunction
    emits nothing for the unchanged row (without a TTL; with one it emits it again:
    test_under_a_ttl_an_unchanged_row_is_emitted_again)."""
    query = "SELECT n > 0 AS k, MIN(item) AS lo FROM (SELECT item, COUNT(*) AS n FROM bids GROUP BY item) GROUP BY n > 0"
    on_jvm, in_python = _run(sql, query, True), _run(sql, query, False)
    assert [c[0] for c in on_jvm[0]] == [c[0] for c in in_python[0]] == ["+I"], (on_jvm[0], in_python[0])
    assert {c[1:] for c in on_jvm[0]} == {(True, 1)}


def _unbounded(sql: Sql, query: str, jvm: bool, ttl: str) -> tuple[Counter, Counter]:
    """The changes and final table of ``query`` over watched_bids under a state TTL, in an
    unbounded job, once every bid is read (and 1.5 s more: the timeouts run)."""
    total = sum(len(batch) for batch in BATCHES)

    def read(job) -> int:
        return sum(s.input_rows for s in job.history)

    def planned(ops: list[Physical]) -> None:
        assert ops and [p.jvm for p in ops] == [jvm] * len(ops), ops

    query = query.replace("FROM bids", "FROM watched_bids")
    with continuous(sql, query, jvm, lambda job: read(job) >= total, ttl=ttl, settle=1.5, planned=planned) as job:
        assert read(job) == total
        changes, _, dropped = job.result.changes_since(0)
        assert dropped == 0
        return _changes((str(c.kind), *c.row) for c in changes), _comparable(job.result.rows())


# a TTL that holds on the aggregation of an aggregation (both on the JVM, every row re-emitted);
# one that expires on both shapes (CI's time budget)
@pytest.mark.parametrize("name,ttl", [("prices regrouped by count", "1 h"), ("prices regrouped by count", "1 ms"),
                                      ("no group by", "1 ms")])
def test_under_a_ttl_in_an_unbounded_job_the_jvm_and_python_operators_emit_the_same_changes(sql, name, ttl):
    """A TTL that holds: the final table of the bounded run without one, every batch's groups
    emitted again even when unchanged (as Flink does under a TTL). One of 1 ms: every group has
    expired by the next micro-batch (released on Spark's timeouts or when it next comes), so each
    batch's rows start their groups afresh (+I) and nothing is retracted for the ones that left."""
    on_jvm, in_python = _unbounded(sql, QUERIES[name], True, ttl), _unbounded(sql, QUERIES[name], False, ttl)
    assert on_jvm[0] == in_python[0], f"changes differ:\njvm {sorted(map(repr, on_jvm[0].items()))}\npy  {sorted(map(repr, in_python[0].items()))}"
    assert on_jvm[1] == in_python[1]
    without = _run(sql, QUERIES[name], True)[1]
    if ttl == "1 h":
        assert on_jvm[1] == _comparable(without.elements())
    else:
        assert on_jvm[1] != _comparable(without.elements())
        assert {c[0] for c in on_jvm[0]} == {"+I"}, on_jvm[0]


def test_under_a_ttl_an_unchanged_row_is_emitted_again(sql):
    """The lowest item stays 1 while every batch moves an item's count: under a TTL Flink's
    GroupAggFunction emits the unchanged row again (-U/+U), so that the operators after it keep
    their state of it alive; without one nothing (test_an_unchanged_row_is_not_emitted_again)."""
    query = "SELECT n > 0 AS k, MIN(item) AS lo FROM (SELECT item, COUNT(*) AS n FROM bids GROUP BY item) GROUP BY n > 0"
    changes, _ = _unbounded(sql, query, True, "1 h")
    assert changes == Counter({("+I", True, 1): 1, ("-U", True, 1): len(BATCHES) - 1, ("+U", True, 1): len(BATCHES) - 1})
