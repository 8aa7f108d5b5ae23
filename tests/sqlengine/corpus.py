"""The streaming = batch corpus: its input (bids and items, written as files read one per
micro-batch), the queries, and what each must give, computed in plain Python.
test_streaming_equals_batch.py runs them."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from sqlengine.engine import Engine
from tests.sqlengine import expectations as E
from tests.sqlengine import expectations_changelog as C
from tests.sqlengine import expectations_over as O
from tests.sqlengine.expectations import ITEM_IDS as ITEMS
from tests.sqlengine.expectations import Data, Rows
from tests.sqlengine.helpers import Sql, ts

# -- the input -----------------------------------------------------------------------------------



def make_bids() -> list[dict]:
    """240 bids over two minutes, out of order by up to 4 s (the watermark delay is 5 s), with
    NULL items and prices, negative deltas and URLs with and without an id."""
    rnd = random.Random(20240101)
    rows, seen = [], set()
    for i in range(240):
        t = round(i * 0.5 + rnd.uniform(-2, 2), 3)
        while t in seen:
            t = round(t + 0.001, 3)
        seen.add(t)
        item = None if i % 37 == 5 else rnd.choice(ITEMS)
        price = None if i % 29 == 3 else rnd.randint(1, 100)
        if item == "i5" and price is not None and i % 2:
            price = None  # i5 has several NULL prices (Top-1 NULL ordering)
        path = rnd.choice(["a/b/c", "a", "x/y", "deep/er/path/here"])
        query = f"?id={rnd.randint(1, 999)}" if i % 3 else ""
        rows.append(
            {
                "ts": ts(t),
                "item": item,
                "price": price,
                "bidder": rnd.randint(1, 12),
                "url": f"https://shop.example/{path}{query}",
                "amount": Decimal(rnd.randint(0, 99999)) / 100,
                "delta": rnd.randint(-9, 9),
            }
        )
    # the one bid of item 'solo' has a NULL price
    rows.append({"ts": ts(100.2501), "item": "solo", "price": None, "bidder": 1, "url": "https://shop.example/a",
                 "amount": Decimal("1.00"), "delta": 1})
    return rows


def make_items() -> list[dict]:
    """Item announcements: each item every 15 s, a category that changes over time; two with a
    NULL id, near bids with a NULL item (NULL never equals NULL in a join)."""
    rows = []
    for k in range(8):
        for n, item in enumerate(ITEMS):
            rows.append({"ts": ts(k * 15 + n * 1.5), "id": item, "cat": (k + n) % 3})
    rows += [{"ts": ts(21.3), "id": None, "cat": 7}, {"ts": ts(76.1), "id": None, "cat": 8}]
    rows.sort(key=lambda r: r["ts"])
    return rows


def chunks(rows: list[dict], n: int) -> list[list[dict]]:
    size = -(-len(rows) // n)
    return [rows[i : i + size] for i in range(0, len(rows), size)]


@dataclass
class World:
    engine: Engine
    sql: Sql
    bids: list[dict]
    items: list[dict]
    root: Path

    def fork(self) -> Sql:
        """A runner with an engine of its own over the same catalog and Spark: threads never
        share an engine (whose settings, the runtime mode among them, are per session)."""
        return fork(self.engine)


def fork(engine: Engine) -> Sql:
    return Sql(Engine(home=engine.home, spark=engine.spark, variables=engine.planner.variables))


# -- the corpus ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    sql: str
    expect: Callable[[Data], Rows]  # the rows it must give, computed from the input in plain Python
    min_rows: int = 1  # a case whose result is empty in both modes proves nothing


TUMBLE10 = "TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
HOP = "TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND))"

CORPUS: dict[str, Case] = {
    # stateless: Flink's function semantics where Spark's differ
    "calc_functions": Case(
        r"""SELECT item, price / 7 AS q, delta / 2 AS half, SPLIT_INDEX(url, '/', 3) AS dir1,
                   SPLIT_INDEX(url, '/', 9) AS dir9, REGEXP_EXTRACT(url, 'id=(\d+)', 1) AS id,
                   DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm') AS mnt, amount * 2 AS twice, 0.908 * price AS euro
            FROM bids WHERE price > 10 OR price IS NULL""",
        E.expect_calc,
    ),
    "calc_case_coalesce": Case(
        """SELECT bidder, CASE WHEN price IS NULL THEN 'none' WHEN price > 50 THEN 'high' ELSE 'low' END AS band,
                  COALESCE(item, 'unknown') AS item, CHAR_LENGTH(url) AS len, UPPER(SUBSTRING(url, 9, 4)) AS host
           FROM bids""",
        E.expect_calc_case_coalesce,
    ),
    "view_filter": Case("SELECT item, price FROM cheap WHERE bidder > 3",
        E.expect_view_filter,
    ),
    # windows
    "tumble_tvf": Case(
        f"""SELECT item, window_start, window_end, COUNT(*) AS c, SUM(price) AS s, MAX(price) AS mx
            FROM {TUMBLE10} GROUP BY item, window_start, window_end""",
        E.expect_tumble,
    ),
    "tumble_tvf_window_time": Case(
        f"""SELECT window_start, window_time, COUNT(*) AS c, MIN(bidder) AS b FROM {TUMBLE10}
            GROUP BY window_start, window_end, window_time""",
        E.expect_tumble_window_time,
    ),
    "hop_tvf": Case(
        f"""SELECT item, window_start, window_end, COUNT(*) AS c, AVG(price) AS a FROM {HOP}
            GROUP BY item, window_start, window_end""",
        E.expect_hop,
    ),
    "tumble_offset": Case(
        """SELECT window_start, window_end, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts),
             INTERVAL '20' SECOND, INTERVAL '7' SECOND)) GROUP BY window_start, window_end""",
        E.expect_tumble_offset,
    ),
    "cumulate_tvf": Case(
        """SELECT window_start, window_end, COUNT(*) AS c, SUM(price) AS s FROM TABLE(CUMULATE(TABLE bids,
             DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '20' SECOND)) GROUP BY window_start, window_end""",
        E.expect_cumulate,
    ),
    "tumble_legacy": Case(
        """SELECT item, TUMBLE_START(ts, INTERVAL '30' SECOND) AS ws, TUMBLE_END(ts, INTERVAL '30' SECOND) AS we,
                  MAX(price) AS m, COUNT(*) AS c
           FROM bids GROUP BY item, TUMBLE(ts, INTERVAL '30' SECOND)""",
        E.expect_tumble_legacy,
    ),
    "hop_legacy": Case(
        """SELECT HOP_START(ts, INTERVAL '10' SECOND, INTERVAL '30' SECOND) AS ws, SUM(delta) AS d
           FROM bids GROUP BY HOP(ts, INTERVAL '10' SECOND, INTERVAL '30' SECOND)""",
        E.expect_hop_legacy,
    ),
    "session_legacy": Case(
        """SELECT bidder, SESSION_START(ts, INTERVAL '6' SECOND) AS s, SESSION_END(ts, INTERVAL '6' SECOND) AS e,
                  COUNT(*) AS c FROM bids GROUP BY bidder, SESSION(ts, INTERVAL '6' SECOND)""",
        E.expect_session_legacy,
    ),
    "session_tvf_partitioned": Case(
        """SELECT item, window_start, window_end, COUNT(*) AS c
           FROM TABLE(SESSION(TABLE bids PARTITION BY item, DESCRIPTOR(ts), INTERVAL '4' SECOND))
           GROUP BY item, window_start, window_end""",
        E.expect_session_tvf,
    ),
    "window_filter_having": Case(
        f"""SELECT item, window_start, COUNT(*) AS c, COUNT(*) FILTER (WHERE price > 50) AS hi
            FROM {TUMBLE10} WHERE bidder <> 3 GROUP BY item, window_start, window_end HAVING COUNT(*) > 1""",
        E.expect_window_filter_having,
    ),
    "cascaded_windows": Case(
        f"""SELECT window_start, window_end, MAX(c) AS mx, SUM(c) AS total FROM (
              SELECT item, window_start, window_end, window_time AS wt, COUNT(*) AS c FROM {TUMBLE10}
              GROUP BY item, window_start, window_end, window_time)
            GROUP BY window_start, window_end""",
        E.expect_cascaded_windows,
    ),
    "cascaded_rewindow": Case(
        f"""WITH counts AS (
              SELECT item, window_time AS wt, COUNT(*) AS c FROM {TUMBLE10} GROUP BY item, window_start, window_end, window_time)
            SELECT window_start, window_end, SUM(c) AS total
            FROM TABLE(TUMBLE(TABLE counts, DESCRIPTOR(wt), INTERVAL '30' SECOND)) GROUP BY window_start, window_end""",
        E.expect_cascaded_rewindow,
    ),
    # unbounded keyed operators (upserts on their key)
    "group_agg": Case(
        """SELECT item, COUNT(*) AS c, COUNT(price) AS cp, SUM(price) AS s, AVG(price) AS a, MIN(price) AS mn
           FROM bids GROUP BY item""",
        E.expect_group,
    ),
    "group_agg_expressions": Case(
        """SELECT MOD(bidder, 3) AS b3, DATE_FORMAT(ts, 'HH:mm') AS mnt, COUNT(*) AS c,
                  SUM(amount) AS total, MAX(url) AS u, COUNT(*) FILTER (WHERE price IS NULL) AS nulls
           FROM bids GROUP BY MOD(bidder, 3), DATE_FORMAT(ts, 'HH:mm')""",
        E.expect_group_expressions,
    ),
    "distinct": Case("SELECT DISTINCT item, bidder FROM bids", E.expect_distinct),
    "count_distinct": Case(
        """SELECT item, COUNT(DISTINCT bidder) AS bidders, SUM(DISTINCT price) AS sp, AVG(DISTINCT delta) AS ad,
                  COUNT(DISTINCT bidder) FILTER (WHERE price > 50) AS rich
           FROM bids GROUP BY item""",
        E.expect_count_distinct,
    ),
    "count_distinct_window": Case(
        f"""SELECT window_start, COUNT(DISTINCT item) AS items, COUNT(DISTINCT bidder, item) AS pairs
            FROM {TUMBLE10} GROUP BY window_start, window_end""",
        E.expect_count_distinct_window,
    ),
    "dedup_keep_first": Case(
        """SELECT item, ts, price FROM (
             SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY ts ASC) AS rn FROM bids) WHERE rn = 1""",
        E.expect_dedup_first,
    ),
    "dedup_keep_last": Case(
        """SELECT item, ts, price FROM (
             SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY ts DESC) AS rn FROM bids) WHERE rn = 1""",
        E.expect_dedup_last,
    ),
    "top1_desc": Case(
        """SELECT item, price, ts FROM (
             SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC, ts ASC) AS rn FROM bids)
           WHERE rn <= 1""",
        E.expect_top1_desc,
    ),
    "top1_nulls_first": Case(
        """SELECT item, price, ts FROM (
             SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price ASC, ts DESC) AS rn FROM bids)
           WHERE rn = 1""",
        E.expect_top1_nulls_first,
    ),
    # joins
    "interval_join": Case(
        """SELECT b.item, b.ts, b.price, i.cat FROM bids b JOIN items i
             ON b.item = i.id AND b.ts BETWEEN i.ts - INTERVAL '5' SECOND AND i.ts + INTERVAL '5' SECOND""",
        E.expect_interval_join,
    ),
    "interval_left_join": Case(
        """SELECT b.item, b.ts, i.cat FROM bids b LEFT JOIN items i
             ON b.item = i.id AND b.ts BETWEEN i.ts - INTERVAL '5' SECOND AND i.ts + INTERVAL '5' SECOND""",
        E.expect_left_interval_join,
    ),
    "interval_join_then_window": Case(
        """WITH j AS (
             SELECT b.ts, b.item, i.cat FROM bids b JOIN items i
               ON b.item = i.id AND b.ts BETWEEN i.ts - INTERVAL '5' SECOND AND i.ts + INTERVAL '5' SECOND)
           SELECT window_start, window_end, COUNT(*) AS c
           FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ts), INTERVAL '20' SECOND)) GROUP BY window_start, window_end""",
        E.expect_interval_join_then_window,
    ),
    "regular_join": Case(
        "SELECT b.item, b.price, i.cat, i.ts FROM bids b JOIN items i ON b.item = i.id WHERE b.price > 95",
        E.expect_regular_join,
    ),
    "window_join": Case(
        f"""SELECT L.item, L.window_start, L.c, R.mx FROM (
              SELECT item, window_start, window_end, COUNT(*) AS c FROM {TUMBLE10} GROUP BY item, window_start, window_end) L
            JOIN (
              SELECT id, window_start, window_end, MAX(cat) AS mx
              FROM TABLE(TUMBLE(TABLE items, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY id, window_start, window_end) R
            ON L.item = R.id AND L.window_start = R.window_start AND L.window_end = R.window_end""",
        E.expect_window_join,
    ),
    "window_join_tvf": Case(
        """SELECT L.item, L.price, R.cat, L.window_start FROM
             (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '15' SECOND))) L
           JOIN (SELECT * FROM TABLE(TUMBLE(TABLE items, DESCRIPTOR(ts), INTERVAL '15' SECOND))) R
           ON L.item = R.id AND L.window_start = R.window_start AND L.window_end = R.window_end""",
        E.expect_window_join_tvf,
    ),
    # both rowtimes in the output: Spark failed the job (MULTIPLE_EVENT_TIME_COLUMNS: ts and the window)
    "window_join_tvf_rowtimes": Case(
        """SELECT L.item, L.ts, R.ts AS announced, R.cat FROM
             (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '15' SECOND))) L
           JOIN (SELECT * FROM TABLE(TUMBLE(TABLE items, DESCRIPTOR(ts), INTERVAL '15' SECOND))) R
           ON L.item = R.id AND L.window_start = R.window_start AND L.window_end = R.window_end""",
        E.expect_window_join_tvf_rowtimes,
    ),
    "lookup_join": Case(
        """SELECT b.item, b.price, s.cat, s.label FROM (SELECT *, PROCTIME() AS pt FROM bids) b
           JOIN items_static FOR SYSTEM_TIME AS OF b.pt AS s ON b.item = s.id""",
        E.expect_lookup,
    ),
    # window ranking
    "window_topn": Case(
        f"""SELECT * FROM (
              SELECT item, price, ts, window_start, window_end,
                     ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC, ts ASC) AS rn
              FROM {TUMBLE10}) WHERE rn <= 3""",
        E.expect_window_topn,
    ),
    "window_topn_per_item": Case(
        """SELECT * FROM (
              SELECT item, bidder, price, window_start, window_end,
                     ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY price ASC, ts DESC) AS rn
              FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '30' SECOND))) WHERE rn <= 2""",
        E.expect_window_topn_per_item,
    ),
    "window_topn_after_agg": Case(
        f"""SELECT * FROM (
              SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY c DESC, item ASC) AS rn
              FROM (SELECT item, window_start, window_end, COUNT(*) AS c FROM {TUMBLE10}
                    WHERE item IS NOT NULL GROUP BY item, window_start, window_end))
            WHERE rn <= 2""",
        E.expect_window_topn_after_agg,
    ),
    "window_dedup": Case(
        f"""SELECT item, ts, price, window_start FROM (
              SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY ts ASC) AS rn
              FROM {TUMBLE10}) WHERE rn = 1""",
        E.expect_window_dedup,
    ),
    # set operations
    "union_all": Case(
        "SELECT item, price FROM bids WHERE price > 90 UNION ALL SELECT id, cat FROM items", E.expect_union
    ),
    "union_all_windows": Case(
        f"""SELECT window_start, c FROM (
              SELECT window_start, window_end, COUNT(*) AS c FROM {TUMBLE10} GROUP BY window_start, window_end
              UNION ALL
              SELECT window_start, window_end, COUNT(*) AS c
              FROM TABLE(TUMBLE(TABLE items, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end)""",
        E.expect_union_all_windows,
    ),
    # changelog operators: results that retract (Top-N, aggregations and joins over updates,
    # outer joins, ORDER BY ... LIMIT), as Flink runs them
    "latest_three_per_bidder": Case(
        """SELECT bidder, ts, item FROM (
             SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts DESC) AS rn FROM bids) WHERE rn <= 3""",
        C.expect_latest_three_per_bidder,
    ),
    "count_of_counts": Case(
        "SELECT c, COUNT(*) AS bidders FROM (SELECT bidder, COUNT(*) AS c FROM bids GROUP BY bidder) GROUP BY c",
        C.expect_count_of_counts,
    ),
    "top_two_spenders": Case(
        """SELECT * FROM (
             SELECT bidder, s, ROW_NUMBER() OVER (ORDER BY s DESC, bidder ASC) AS rn
             FROM (SELECT bidder, SUM(price) AS s FROM bids GROUP BY bidder)) WHERE rn <= 2""",
        C.expect_top_two_spenders,
    ),
    "rank_of_counts": Case(
        """SELECT * FROM (
             SELECT bidder, c, RANK() OVER (ORDER BY c DESC) AS r
             FROM (SELECT bidder, COUNT(*) AS c FROM bids GROUP BY bidder)) WHERE r <= 3""",
        C.expect_rank_of_counts,
    ),
    "left_join_unbounded": Case(
        "SELECT b.item, b.price, i.ts FROM bids b LEFT JOIN items i ON b.item = i.id AND i.cat = 1",
        C.expect_left_join_items,
    ),
    "join_of_aggregations": Case(
        """SELECT a.item, a.c, m.mc FROM (SELECT item, COUNT(*) AS c FROM bids GROUP BY item) a
           JOIN (SELECT id, MAX(cat) AS mc FROM items GROUP BY id) m ON a.item = m.id""",
        C.expect_join_of_aggregations,
    ),
    "full_join_of_aggregations": Case(
        """SELECT a.item, a.c, z.id, z.n
           FROM (SELECT item, COUNT(*) AS c FROM bids WHERE price > 50 GROUP BY item) a
           FULL JOIN (SELECT id, COUNT(*) AS n FROM items WHERE cat = 0 GROUP BY id) z ON a.item = z.id""",
        C.expect_full_join_of_aggregations,
    ),
    "semi_join": Case(
        "SELECT item, price FROM bids WHERE item IN (SELECT id FROM items WHERE cat = 2)",
        C.expect_semi_join,
    ),
    "order_by_limit": Case(
        "SELECT item, price, ts FROM bids ORDER BY price DESC, ts ASC LIMIT 5",
        C.expect_order_by_limit,
    ),
    "aggregate_over_dedup": Case(
        """SELECT item, COUNT(*) AS c FROM (
             SELECT bidder, item FROM (
               SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts DESC) AS rn FROM bids) WHERE rn = 1)
           GROUP BY item""",
        C.expect_items_of_latest_bids,
    ),
    # Spark's own update-mode aggregation over a window aggregation failed at start ("possible
    # correctness issue due to global watermark"): the outer one runs as a changelog operator
    "group_agg_over_window": Case(
        f"""SELECT item, MAX(c) AS busiest, COUNT(*) AS windows FROM (
              SELECT item, window_start, COUNT(*) AS c FROM {TUMBLE10} GROUP BY item, window_start, window_end)
            GROUP BY item""",
        C.expect_group_agg_over_window,
    ),
    # OVER on event time (a changelog operator whose rows wait for the watermark)
    "over_rows": Case(
        """SELECT item, ts, price, SUM(price) OVER (PARTITION BY item ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s
           FROM bids""",
        O.expect_over_rows,
    ),
    "over_range_named_window": Case(
        """SELECT item, ts, COUNT(*) OVER w AS n, SUM(amount) OVER w AS total, AVG(price) OVER w AS a, MAX(price) OVER w AS mx
           FROM bids WINDOW w AS (PARTITION BY item ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW)""",
        O.expect_over_range,
    ),
    "over_unbounded": Case(
        "SELECT bidder, ts, SUM(price) OVER (PARTITION BY bidder ORDER BY ts) AS s, MIN(price) OVER (PARTITION BY bidder ORDER BY ts) AS lo FROM bids",
        O.expect_over_unbounded,
    ),
    # OVER over changes: ordered by no time attribute (each bid changes the rows above its
    # price), and over a Top-1's updates (Nexmark q6's shape, which Flink cannot run)
    "over_by_price": Case(
        "SELECT item, price, COUNT(*) OVER w AS at_or_below, MAX(amount) OVER w AS top_amount FROM bids "
        "WINDOW w AS (PARTITION BY item ORDER BY price)",
        O.expect_over_by_price,
    ),
    "over_top_prices": Case(
        """SELECT bidder, item, price, SUM(price) OVER (PARTITION BY bidder ORDER BY item ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s
           FROM (SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC, ts) AS rn FROM bids
                 WHERE item IS NOT NULL) WHERE rn = 1)""",
        O.expect_over_top_prices,
    ),
    # the upsert key (item) is projected away: rows of one item replace each other by retraction
    "group_key_projected_away": Case("SELECT COUNT(*) AS c FROM bids GROUP BY item", C.expect_group_key_projected_away),
    "average_of_maxima": Case(
        """SELECT cat, AVG(mx) AS a FROM (
             SELECT b.item, f.cat, MAX(b.price) AS mx FROM bids b JOIN (
               SELECT id, cat FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts ASC) AS rn FROM items)
               WHERE rn = 1) f ON b.item = f.id
             GROUP BY b.item, f.cat)
           GROUP BY cat""",
        C.expect_average_of_maxima,
    ),
}
