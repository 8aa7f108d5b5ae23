"""'table.local-time-zone' in the planner: SET takes the zones Flink takes (each verdict below
checked on Flink 2.3), the zone reaches the analysis, and a window on a TIMESTAMP_LTZ in another
zone than UTC runs there (Flink aligns it to the zone's wall clock). The values in
a zone are compared with Flink's by the function suite (tests/functions/cases/zone.txt)."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.check import Code
from planner.analysis.physical import Why
from planner.errors import SqlError
from planner.logical.operators import WindowAggregate
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession
from planner.time_zone import fixed_offset_ms, instant_ms, local_time_zone, normalized, observes_dst, wall_ms

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


SESSION = ("SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), INTERVAL '10' MINUTE)) "
           "GROUP BY window_start, window_end;")


@pytest.mark.parametrize("zone", ["Asia/Kolkata", "America/New_York", "Europe/Berlin", "GMT-03:00", "UTC"])
@pytest.mark.parametrize("sql", [DAY, HOUR_HOP, LEGACY_DAY, PROCTIME, SESSION])
def test_a_window_on_an_ltz_runs_in_any_zone(sql: str, zone: str) -> None:
    """Flink aligns it to the zone's wall clock: a zone of one offset moves Spark's windows by it,
    one with daylight saving time has them assigned on the wall clock (conformance z04-z10)."""
    assert plan(sql, zone).analysis.problems == ()


@pytest.mark.parametrize(("zone", "fixed", "dst"), [
    ("Asia/Kolkata", 19_800_000, False), ("GMT-03:00", -10_800_000, False), ("UTC", 0, False),
    ("Asia/Shanghai", 28_800_000, False), ("America/New_York", None, True), ("Europe/Moscow", None, False),
])
def test_a_zone_has_one_offset_or_several(zone: str, fixed: int | None, dst: bool) -> None:
    """Since 2000: Shanghai's daylight saving time ended in 1991; Moscow's offset changed in 2011
    and 2014 without daylight saving time since (Flink then fires a window at the first instant
    of a repeated wall time, as Java's useDaylightTime() is false)."""
    assert fixed_offset_ms(zone) == fixed
    assert observes_dst(zone) == dst


@pytest.mark.parametrize(("zone", "changelog"), [("America/New_York", True), ("Asia/Kolkata", False), ("UTC", False)])
def test_sessions_on_a_wall_clock_with_daylight_saving_time_run_on_the_changelog_operator(zone: str, changelog: bool) -> None:
    analysis = plan(SESSION, zone).analysis
    (node,) = [n for n in analysis.plans[0].walk() if isinstance(n, WindowAggregate)]
    physical = analysis.physical.get(node.node_id)
    assert (physical is not None and physical.changelog) == changelog
    if changelog:
        assert physical is not None and physical.why == Why.WALL_CLOCK_SESSIONS


def test_wall_times_and_their_instants_follow_javas_rules() -> None:
    """A wall time the autumn repeats is its first instant (Java's atZone), or its second when
    asked (when Flink fires a window ending there); one in the spring's gap moves forward."""
    zone = "America/Los_Angeles"
    repeated = wall_ms(1_636_273_800_000, zone)  # 2021-11-07 08:30 UTC, 01:30 PDT
    assert wall_ms(1_636_277_400_000, zone) == repeated  # an hour later, 01:30 PST
    assert instant_ms(repeated, zone) == 1_636_273_800_000
    assert instant_ms(repeated, zone, later=True) == 1_636_277_400_000
    gap = wall_ms(1_615_714_200_000, zone) + 3_600_000  # 2021-03-14 09:30 UTC is 01:30 PST: 02:30 does not happen
    assert instant_ms(gap, zone) == instant_ms(gap, zone, later=True) == 1_615_717_800_000  # 10:30 UTC, 03:30 PDT


def test_a_window_on_a_timestamp_runs_in_any_zone() -> None:
    sql = "SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE walls, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end;"
    assert plan(sql, "America/New_York").analysis.problems == ()


def test_a_wall_clock_session_runs_the_aggregates_its_operator_can_merge() -> None:
    """Sessions on New York's wall clock run on sqlengine's window operator, which merges the
    sessions a row bridges: LISTAGG's values it cannot merge, and the refusal says why."""
    sql = ("SELECT window_start, LISTAGG(CAST(ms AS STRING)) FROM TABLE(SESSION(TABLE events, DESCRIPTOR(ts), "
           "INTERVAL '10' MINUTE)) GROUP BY window_start, window_end;")
    (problem,) = plan(sql, "America/New_York").analysis.problems
    assert problem.code == Code.SESSION_MERGE and "LISTAGG" in problem.message and "daylight saving time" in problem.message
    assert plan(sql, "Asia/Kolkata").analysis.problems == ()  # Spark's session windows there


def test_a_session_after_an_over_window_runs_on_the_window_operator_in_any_zone() -> None:
    """The OVER operator's rows come out as the watermark passes them, their time with Spark's
    watermark mark: a session window follows them on sqlengine's window operator, on the zone's
    wall clock or not."""
    sql = ("CREATE TEMPORARY VIEW o AS SELECT ts, SUM(ms) OVER (ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s "
           "FROM events; SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE o, DESCRIPTOR(ts), INTERVAL '10' MINUTE)) "
           "GROUP BY window_start, window_end;")
    for zone in ("America/New_York", "UTC"):
        analysis = plan(sql, zone).analysis
        assert analysis.problems == ()
        (window,) = [n for n in analysis.plans[0].walk() if isinstance(n, WindowAggregate)]
        assert analysis.physical[window.node_id].changelog
