"""State analysis per operator: what each side or accumulator keeps and for how long."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.state.facts import ReleaseKind
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

DDL = """
CREATE TABLE bids (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
CREATE TABLE auctions (id BIGINT, seller BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def state(sql: str):
    session = PlannerSession(Catalog.in_memory())
    outcome = None
    for stmt in parse_script(DDL + sql).statements:
        outcome = session.execute(stmt)
    return outcome.analysis.state


@pytest.mark.parametrize(
    ("bound", "left_ms", "right_ms"),
    [
        # a bid waits for auctions up to 1 h after it; an auction for bids up to its own time
        ("b.ts BETWEEN a.ts - INTERVAL '1' HOUR AND a.ts", 3_600_000 + 5_000, 5_000),
        # the mirror image: an auction waits for bids up to 1 h after it
        ("b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' HOUR", 5_000, 3_600_000 + 5_000),
        ("b.ts BETWEEN a.ts - INTERVAL '10' MINUTE AND a.ts + INTERVAL '1' MINUTE", 600_000 + 5_000, 60_000 + 5_000),
    ],
)
def test_interval_join_keeps_each_side_until_the_other_side_can_no_longer_match(bound, left_ms, right_ms):
    (info,) = state(f"SELECT b.auction, a.seller FROM bids b JOIN auctions a ON b.auction = a.id AND {bound};")
    left, right = info.parts
    assert (left.label, right.label) == ("left side", "right side")
    assert (left.retention_ms, right.retention_ms) == (left_ms, right_ms)
    assert info.verdict.value == "bounded"


def test_tumble_window_accumulators_live_one_window_plus_the_delay():
    (info,) = state(
        "SELECT auction, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
        "GROUP BY auction, window_start, window_end;"
    )
    (part,) = info.parts
    assert part.retention_ms == 65_000 and part.per == "per open window and key (auction)"


@pytest.mark.parametrize(
    ("kind", "released"),
    [
        # Spark's own inner join drops a bid once the auctions' watermark passes its time
        ("JOIN", (False, True)),
        # a LEFT JOIN runs as a changelog operator, which drops nothing until it is retracted:
        # a one-sided time bound does not release it (the verdict said it did)
        ("LEFT JOIN", (False, False)),
    ],
)
def test_a_one_sided_time_bound_releases_rows_only_in_a_native_join(kind, released):
    (info,) = state(f"SELECT a.id, b.price FROM auctions a {kind} bids b ON a.id = b.auction AND b.ts >= a.ts;")
    assert tuple(p.release.kind != ReleaseKind.NEVER for p in info.parts) == released
    assert info.verdict.value == "unbounded"


@pytest.mark.parametrize(
    ("hint", "left_ms"),
    [
        ("'b' = '10 min'", 600_000),  # the hint overrides the session's TTL for its side only
        ("'b' = '0 ms'", None),  # '0 ms' too: that side is kept forever
    ],
)
def test_a_join_sides_state_ttl_hint_overrides_the_sessions_ttl_for_that_side(hint, left_ms):
    (info,) = state(
        f"SET 'table.exec.state.ttl' = '1 h';\nSELECT /*+ STATE_TTL({hint}) */ b.auction, a.seller "
        "FROM bids b JOIN auctions a ON b.auction = a.id;"
    )
    left, right = info.parts
    assert (left.release.after_ms if left.by_ttl else None) == left_ms
    assert right.by_ttl and right.release.after_ms == 3_600_000
