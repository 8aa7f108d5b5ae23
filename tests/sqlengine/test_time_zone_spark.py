"""'table.local-time-zone' on Spark: a result shows a TIMESTAMP_LTZ as its wall time in the
session's zone, as Flink's SQL client prints it, in batch and streaming mode and whatever the
zone of the Python process; an event-time column computed as an LTZ keeps its instants (its
watermark and its window-free operators do not move); a window on an LTZ in another zone than
UTC is the zone's (its day, with daylight saving time too). The function suite's zone group
compares the functions."""

from __future__ import annotations

import datetime as dt
import os
import time

import pytest

from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, write_json

pytestmark = pytest.mark.spark

DDL = """CREATE TABLE ev (id INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"""
ROWS = [{"id": 1, "ms": 1710510330123}, {"id": 2, "ms": 0}, {"id": 3, "ms": 1710547200000}]  # the last: 2024-03-16 00:00 UTC


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    runner = Sql(Engine(home=tmp_path_factory.mktemp("zone"), spark=spark))
    data = tmp_path_factory.mktemp("zone-data")
    write_json(data / "ev.json", ROWS)
    runner.ddl(DDL.format(path=data))
    return runner


def _in_zone(sql: Sql, zone: str, query: str, mode: str) -> list[tuple]:
    sql.engine.planner.settings["table.local-time-zone"] = zone
    try:
        return sorted(sql.rows(query, mode))
    finally:
        del sql.engine.planner.settings["table.local-time-zone"]


QUERY = "SELECT id, ts, CAST(ts AS DATE), HOUR(ts), ts > TIMESTAMP '2024-03-15 19:00:00' FROM ev"


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_an_ltz_is_shown_and_read_in_the_sessions_zone(sql: Sql, mode: str) -> None:
    assert _in_zone(sql, "Asia/Kolkata", QUERY, mode) == [
        (1, dt.datetime(2024, 3, 15, 19, 15, 30, 123000), dt.date(2024, 3, 15), 19, True),
        (2, dt.datetime(1970, 1, 1, 5, 30), dt.date(1970, 1, 1), 5, False),
        (3, dt.datetime(2024, 3, 16, 5, 30), dt.date(2024, 3, 16), 5, True),
    ]
    assert _in_zone(sql, "America/New_York", QUERY, mode)[2] == (3, dt.datetime(2024, 3, 15, 20, 0), dt.date(2024, 3, 15), 20, True)
    assert _in_zone(sql, "UTC", QUERY, mode)[0] == (1, dt.datetime(2024, 3, 15, 13, 45, 30, 123000), dt.date(2024, 3, 15), 13, False)


def test_the_zone_of_the_python_process_does_not_move_what_is_shown(sql: Sql) -> None:
    """Spark hands a TIMESTAMP to Python as the process's local time; the result is the session's."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "America/Los_Angeles"
    time.tzset()
    try:
        rows = _in_zone(sql, "UTC", "SELECT id, ts FROM ev WHERE id = 2", "batch")
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()
    assert rows == [(2, dt.datetime(1970, 1, 1, 0, 0))]


DAYS = "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end"


def test_a_day_window_on_an_ltz_is_the_zones_day(sql: Sql) -> None:
    """2024-03-16 00:00 UTC is 05:30 in Kolkata; 1970-01-01 00:00 UTC 05:30 there too."""
    midnight = [dt.datetime(1970, 1, 1), dt.datetime(2024, 3, 15), dt.datetime(2024, 3, 16)]
    for mode in ("batch", "streaming"):
        assert _in_zone(sql, "Asia/Kolkata", DAYS, mode) == [(d, 1) for d in midnight]
    assert _in_zone(sql, "GMT-08:00", DAYS, "streaming") == [(dt.datetime(1969, 12, 31), 1), (dt.datetime(2024, 3, 15), 2)]


def test_a_day_window_in_a_zone_with_daylight_saving_time_is_its_wall_day(sql: Sql) -> None:
    """New York is on UTC-05:00 in winter and UTC-04:00 from 10 March 2024: its days are
    assigned on its wall clock (sqlengine.translate.wall_windows; the changes themselves are
    checked against Flink by the conformance queries z04-z10)."""
    want = [(dt.datetime(1969, 12, 31), 1), (dt.datetime(2024, 3, 15), 2)]
    for mode in ("batch", "streaming"):
        assert _in_zone(sql, "America/New_York", DAYS, mode) == want


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_localtimestamp_has_flinks_millisecond_precision(sql: Sql, zone: str) -> None:
    """LOCALTIMESTAMP is a TIMESTAMP(3) in Flink: no microseconds below its milliseconds (Spark's
    clock has them), in UTC and in a zone."""
    rows = _in_zone(sql, zone, "SELECT id, LOCALTIMESTAMP FROM ev", "batch")
    assert len(rows) == 3 and all(r[1].microsecond % 1000 == 0 for r in rows)


def test_the_wall_clock_expressions_agree_with_the_python_model(spark) -> None:
    """sqlengine.translate.wall_windows on Spark against planner.time_zone and the window
    operator's windows_at, in Los Angeles around both 2021 changes: a wall time's instants (a
    repeated one's first and second, one in the spring's gap moved forward) and the HOP and
    CUMULATE windows holding a wall time."""
    from pyspark.sql import functions as F

    from planner.logical.specs import WindowKind, WindowSpec
    from planner.time_zone import instant_ms, wall_ms
    from sqlengine.changelog.window_aggregate import CUMULATE, HOP, windows_at
    from sqlengine.translate.wall_windows import instant, spans

    zone = "America/Los_Angeles"
    base = [wall_ms(ms, zone) for ms in (1_615_712_400_000, 1_636_273_800_000, 1_636_277_400_000)]  # 01:00 PST, 01:30 PDT, 01:30 PST
    walls = sorted({w + d for w in base for d in (-1, 0, 1, 1_799_999, 3_599_999, 5_400_000)})
    hop = WindowSpec(id=1, kind=WindowKind.HOP, time_field="t", size_ms=3 * 3_600_000, slide_ms=3_600_000)
    cumulate = WindowSpec(id=2, kind=WindowKind.CUMULATE, time_field="t", size_ms=86_400_000, step_ms=3_600_000)
    w = F.col("w")
    rows = spark.createDataFrame([(x,) for x in walls], "w BIGINT").select(
        "w", F.unix_millis(instant(w, zone)).alias("first"), F.unix_millis(instant(w, zone, later=True)).alias("second"),
        spans(None, hop, w).alias("hop"), spans(None, cumulate, w).alias("cumulate"),
    ).collect()
    for r in rows:
        assert (r["first"], r["second"]) == (instant_ms(r["w"], zone), instant_ms(r["w"], zone, later=True)), r["w"]
        assert [(s["s"], s["e"]) for s in r["hop"]] == windows_at(HOP, r["w"], hop.size_ms, hop.slide_ms, 0)
        assert [(s["s"], s["e"]) for s in r["cumulate"]] == windows_at(CUMULATE, r["w"], cumulate.size_ms, cumulate.step_ms, 0)
