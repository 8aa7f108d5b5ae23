"""Verdicts for the query shapes issue 11 found wrong: an OVER frame of an event-time range is
released by the watermark, SELECT DISTINCT over a window TVF's bounds is a window aggregation,
MATCH_RECOGNIZE without WITHIN is a finding, a constant watermark does not advance."""

from __future__ import annotations

import pytest

from planner.analysis.state.facts import Growth, ReleaseKind
from planner.logical.operators import WindowAggregate
from tests.planner.helpers import outcome

DDL = """
CREATE TABLE clicks (usr BIGINT, page STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE frozen (usr BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS TIMESTAMP '2020-01-01 00:00:00') WITH ('connector' = 'datagen');
"""


def analyse(sql: str):
    return outcome(DDL, sql).analysis


def codes(sql: str) -> list[str]:
    return [d.code for d in analyse(sql).diagnostics if d.code != "SE301"]


def test_over_range_of_event_time_is_released_by_the_watermark():
    a = analyse(
        "SELECT usr, SUM(amount) OVER (PARTITION BY usr ORDER BY ts "
        "RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM clicks;"
    )
    (info,) = a.state
    (part,) = info.parts
    assert info.verdict.value == "bounded"
    assert (part.release.kind, part.release.after_ms, part.release.delay_ms) == (ReleaseKind.FRAME_RANGE, 3_600_000, 5_000)
    assert part.retention_ms == 3_605_000
    assert "SE106" not in [d.code for d in a.diagnostics]


@pytest.mark.parametrize("frame", ["ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
def test_over_rows_or_unbounded_keeps_every_partition(frame):
    sql = f"SELECT usr, COUNT(*) OVER (PARTITION BY usr ORDER BY ts {frame}) FROM clicks;"
    (info,) = analyse(sql).state
    assert info.verdict.value == "unbounded" and info.parts[0].growth == Growth.KEYS
    assert codes(sql) == ["SE106", "SE302"]  # SE302: it runs as a changelog operator


def test_over_rows_frame_counts_the_current_row():
    a = analyse("SELECT usr, COUNT(*) OVER (PARTITION BY usr ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM clicks;")
    (se106,) = [d for d in a.diagnostics if d.code == "SE106"]
    assert "the last 3 rows (the frame: 2 preceding and the current one) per partition" in se106.message


def test_select_distinct_of_window_bounds_is_a_window_aggregation():
    a = analyse(
        "SELECT DISTINCT window_start, window_end, usr "
        "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE));"
    )
    (info,) = a.state
    assert isinstance(info.node, WindowAggregate) and info.node.keys == ("usr",) and info.node.aggs == ()
    assert info.verdict.value == "bounded" and info.parts[0].release.kind == ReleaseKind.WINDOW_END
    assert a.diagnostics == ()


def test_select_distinct_without_both_bounds_stays_a_distinct():
    sql = "SELECT DISTINCT window_start, usr FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE));"
    (info,) = analyse(sql).state
    assert not isinstance(info.node, WindowAggregate)


MATCH = (
    "SELECT * FROM clicks MATCH_RECOGNIZE (PARTITION BY usr ORDER BY ts MEASURES C.ts AS done "
    "ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW PATTERN ({pattern}){within} "
    "DEFINE V AS V.page = 'cart', B AS B.page <> 'checkout', C AS C.page = 'checkout');"
)


@pytest.mark.parametrize(
    ("pattern", "growth"), [("V B* C", Growth.ROWS), ("V B+ C", Growth.ROWS), ("V B{2,} C", Growth.ROWS), ("V C", Growth.KEYS), ("V B{1,3} C", Growth.KEYS)]
)
def test_match_recognize_without_within_is_unbounded_and_a_finding(pattern, growth):
    sql = MATCH.format(pattern=pattern, within="")
    (info,) = analyse(sql).state
    assert info.verdict.value == "unbounded" and info.parts[0].growth == growth
    assert codes(sql) == ["SE111", "SE302"]  # SE302: it runs as a changelog operator


def test_match_recognize_within_is_bounded_and_no_finding():
    sql = MATCH.format(pattern="V B* C", within=" WITHIN INTERVAL '10' MINUTE")
    (info,) = analyse(sql).state
    assert info.verdict.value == "bounded" and info.parts[0].release.kind == ReleaseKind.WITHIN
    assert codes(sql) == ["SE302"]  # it runs as a changelog operator


def test_a_constant_watermark_never_closes_a_window():
    sql = (
        "SELECT usr, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE frozen, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
        "GROUP BY usr, window_start, window_end;"
    )
    a = analyse(sql)
    (info,) = a.state
    assert info.verdict.value == "unbounded"
    (se107,) = [d for d in a.diagnostics if d.code == "SE107"]
    assert "`frozen` (its watermark is a constant, which never advances)" in se107.message


def test_order_by_a_plain_column_does_not_claim_flink_rejects_it():
    a = analyse("SELECT usr, COUNT(*) OVER (PARTITION BY usr ORDER BY amount) FROM clicks;")
    assert all("Flink rejects" not in d.message for d in a.diagnostics)
