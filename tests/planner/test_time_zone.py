"""'table.local-time-zone' in the planner: SET takes the zones Flink takes (each verdict below
checked on Flink 2.3), the zone reaches the analysis, and a window on a TIMESTAMP_LTZ in another
zone than UTC is refused before any job (Flink aligns it to the zone's wall clock). The values in
a zone are compared with Flink's by the function suite (tests/functions/cases/zone.txt)."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.check import Code
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession
from planner.time_zone import local_time_zone, normalized

DDL = """
CREATE TABLE events (ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), pt AS PROCTIME(),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE walls (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');
"""

FLINK_TAKES = {"UTC": "UTC", "GMT": "GMT", "GMT+8": "GMT+08:00", "GMT+08:00": "GMT+08:00", "GMT+0800": "GMT+08:00",
               "Etc/GMT-8": "Etc/GMT-8", "Asia/Shanghai": "Asia/Shanghai", "US/Eastern": "US/Eastern", "PRC": "PRC",
               "Japan": "Japan", "Europe/Berlin": "Europe/Berlin"}
FLINK_REFUSES = ["CST", "EST", "PST", "UT", "GMT-5:30", "UTC+8", "+08:00", "Z", "asia/shanghai", "Nowhere/City", "../etc/passwd"]


@pytest.mark.parametrize("zone", sorted(FLINK_TAKES))
def test_set_takes_the_zones_flink_takes(zone: str) -> None:
    assert normalized(zone) == FLINK_TAKES[zone]


@pytest.mark.parametrize("zone", FLINK_REFUSES)
def test_set_refuses_the_zones_flink_refuses_at_the_value(zone: str) -> None:
    assert normalized(zone) is None
    session = PlannerSession(Catalog.in_memory())
    text = f"SET 'table.local-time-zone' = '{zone}';"
    (stmt,) = parse_script(text).statements
    with pytest.raises(SqlError) as err:
        session.execute(stmt)
    assert "Invalid time zone" in str(err.value) and "'GMT+03:00'" in str(err.value)
    assert text[err.value.span.start:err.value.span.end] == f"'{zone}'"
    assert "table.local-time-zone" not in session.settings


def test_the_analysis_carries_the_zone_and_utc_is_the_default() -> None:
    assert local_time_zone({}) == "UTC"
    assert local_time_zone({"table.local-time-zone": "GMT+8"}) == "GMT+08:00"
    assert plan("SELECT ms FROM events;").analysis.time_zone == "UTC"
    assert plan("SELECT ms FROM events;", "Asia/Kolkata").analysis.time_zone == "Asia/Kolkata"


def plan(sql: str, zone: str | None = None) -> Outcome:
    settings = {"table.local-time-zone": zone} if zone else {}
    session = PlannerSession(Catalog.in_memory(), settings=settings)
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


DAY = "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end;"
HOUR_HOP = ("SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '30' MINUTE, INTERVAL '1' HOUR)) "
            "GROUP BY window_start, window_end;")
LEGACY_DAY = "SELECT TUMBLE_START(ts, INTERVAL '1' DAY), COUNT(*) FROM events GROUP BY TUMBLE(ts, INTERVAL '1' DAY);"
PROCTIME = "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(pt), INTERVAL '1' HOUR)) GROUP BY window_start, window_end;"


@pytest.mark.parametrize("zone", ["Asia/Kolkata", "Asia/Shanghai", "GMT-03:00", "UTC"])
@pytest.mark.parametrize("sql", [DAY, HOUR_HOP, LEGACY_DAY])
def test_a_window_on_an_ltz_runs_in_a_zone_whose_offsets_move_it_alike(sql: str, zone: str) -> None:
    assert plan(sql, zone).analysis.problems == ()


@pytest.mark.parametrize(("sql", "zone", "why"), [
    (DAY, "America/New_York", "daylight saving time moves its edges"),
    (LEGACY_DAY, "Europe/Berlin", "daylight saving time moves its edges"),
    (PROCTIME, "Asia/Kolkata", "it is a processing-time window"),
])
def test_a_window_on_an_ltz_is_refused_where_the_zone_would_move_it(sql: str, zone: str, why: str) -> None:
    problems = plan(sql, zone).analysis.problems
    assert [p.code for p in problems] == [Code.WINDOW_LOCAL_TIME_ZONE]
    assert f"'table.local-time-zone' = '{zone}'" in problems[0].message and why in problems[0].message
    assert plan(sql).analysis.problems == ()


def test_an_hour_is_an_hour_in_every_offset_of_new_york() -> None:
    assert plan(HOUR_HOP, "America/New_York").analysis.problems == ()


def test_a_window_on_a_timestamp_runs_in_any_zone() -> None:
    sql = "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE walls, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end;"
    assert plan(sql, "America/New_York").analysis.problems == ()
