"""The rows holding each window's maximum, ties kept: written as Nexmark q5 writes it (a window
join of a window aggregation with its own MAX per window), which the planner runs as a window
Top-1 with ties (planner/logical/window_argmax.py), and written so that it stays a join. Both give
the same rows, in streaming and batch mode, over input with ties and with groups whose value is
NULL, and the rows computed here in Python."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

import pytest

from planner.logical.joins import WindowJoin
from planner.logical.operators import TopN
from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, multiset, write_batches

pytestmark = pytest.mark.spark

# (item, price, second): in [0 s, 4 s) a and b tie on 30; d's prices are all NULL; c trails
EVENTS = [
    ("a", 10, 0.5), ("b", 20, 1.0), ("a", 20, 1.5), ("b", 10, 2.5), ("c", 5, 3.0), ("d", None, 3.5),
    ("c", 40, 6.0), ("d", None, 7.0), ("a", 1, 9.0), ("e", 41, 12.5), ("d", None, 13.0), ("e", None, 15.0),
    ("d", None, 21.0),  # a window of NULLs only: no row (a NULL is no maximum)
]
MIDNIGHT = dt.datetime(2024, 1, 1)
SUMS = """SELECT item, SUM(price) AS v, window_start AS s, window_end AS e
  FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
  GROUP BY item, window_start, window_end"""
QUERY = f"""SELECT A.s, A.item, A.v, M.m FROM ({SUMS}) AS A
JOIN (SELECT MAX(C.v) AS m, C.s, C.e FROM ({SUMS}) AS C GROUP BY C.s, C.e) AS M
ON A.s = M.s AND A.e = M.e AND {{compare}}"""
REWRITTEN = QUERY.format(compare="A.v >= M.m")
JOINED = QUERY.format(compare="A.v >= M.m AND A.v <= M.m")  # the same rows, but not the rule's shape


def expected() -> list[tuple]:
    sums: dict[tuple[float, str], list] = defaultdict(list)
    for item, price, second in EVENTS:
        first = (int(second // 2) - 4) * 2  # the HOP windows of 10 s every 2 s that hold the row
        for start in range(first, first + 10, 2):
            if start <= second < start + 10:
                sums[(start, item)].append(price)
    totals = {k: sum(p for p in v if p is not None) if any(p is not None for p in v) else None for k, v in sums.items()}
    rows = []
    for start in {s for s, _ in totals}:
        values = [v for (s, _), v in totals.items() if s == start and v is not None]
        if values:
            rows += [(start, item, v, max(values)) for (s, item), v in totals.items() if s == start and v == max(values)]
    return rows


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    home = tmp_path_factory.mktemp("argmax")
    batches = [[], [], []]
    for item, price, second in EVENTS:  # three files, read one per micro-batch
        batches[min(int(second // 8), 2)].append({"item": item, "price": price, "ts": f"2024-01-01 00:00:{second:06.3f}"})
    data = write_batches(home / "events", batches)
    runner = Sql(Engine(home=home / "home", spark=spark))
    runner.ddl(f"""CREATE TABLE events (item STRING, price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                   WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');""")
    return runner


def test_the_plans_differ_as_meant(sql: Sql) -> None:
    sql.mode("streaming")
    rewritten = list(sql.outcome(REWRITTEN).plans[0].walk())
    joined = list(sql.outcome(JOINED).plans[0].walk())
    assert any(isinstance(n, TopN) and n.rule for n in rewritten) and not any(isinstance(n, WindowJoin) for n in rewritten)
    assert any(isinstance(n, WindowJoin) for n in joined)


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_both_forms_give_the_rows_of_each_windows_maximum(sql: Sql, mode: str) -> None:
    want = multiset(expected())
    assert any(n > 1 for n in multiset((s, m) for s, _, _, m in expected()).values())  # the input has ties
    for query in (REWRITTEN, JOINED):
        got = sql.rows(query, mode)
        starts = [((r[0] - MIDNIGHT).total_seconds(), *r[1:]) for r in got]
        assert multiset(starts) == want, (mode, query == REWRITTEN, sorted(starts), sorted(expected()))
