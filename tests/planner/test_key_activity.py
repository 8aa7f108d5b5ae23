"""Keys that come and go (catalog/activity.py, planner/analysis/key_spans.py): a window's, a TTL's
or a session gap's keys are those arriving within its span, drawn from the ids in use then. The
state-verdict harness (tests/integration) checks the resulting estimates against Spark's state."""

from __future__ import annotations

import pytest

from catalog import TableDef
from catalog.activity import KeyActivity
from catalog.connectors.nexmark import Nexmark
from planner.analysis.key_spans import distinct_within, expected_distinct
from tests.planner.helpers import outcome

FILE = """
CREATE TABLE f (k BIGINT, u BIGINT, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/f', 'format' = 'json', 'stats.rows-per-second' = '100'{extra});
"""
TUMBLE = "SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE f, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;"


def estimate(sql: str, extra: str = ""):
    analysis = outcome(FILE.format(extra=extra), sql).analysis
    assert analysis is not None
    (e,) = [e for per in analysis.estimates.values() for e in per]
    return e


def test_one_column_draws_from_the_ids_in_use_during_the_span() -> None:
    ids = KeyActivity(100, new_per_second=5)
    assert distinct_within((ids,), 1000, 10) == pytest.approx(expected_distinct(150, 1000))
    # a hot share: those rows add one key, the rest draw uniformly
    hot = KeyActivity(100, hot_share=0.75)
    assert distinct_within((hot,), 400, 10) == pytest.approx(1 + expected_distinct(100, 100))
    # a finite domain is an activity without churn or hot key
    assert distinct_within((KeyActivity(5),), 1000, 60) == pytest.approx(5)


def test_a_moving_hot_key_spreads_its_rows_over_the_keys_it_moved_to() -> None:
    # over 10 s the hot key is 1 + 0.5 x 10 = 6 keys; with a second column drawn uniformly,
    # the hot rows pair with it over all of them
    a, b = KeyActivity(10, hot_share=1.0, hot_moves_per_second=0.5), KeyActivity(1000)
    assert distinct_within((a,), 1000, 10) == pytest.approx(expected_distinct(6, 1000))
    assert distinct_within((a, b), 1000, 10) == pytest.approx(expected_distinct(6 * 1000, 1000))


def test_several_columns_split_by_which_are_hot() -> None:
    a, b = KeyActivity(10, hot_share=0.5), KeyActivity(1000, hot_share=0.5)
    rows = 400
    expected = 1 + expected_distinct(1000, 100) + expected_distinct(10, 100) + expected_distinct(10_000, 100)
    assert distinct_within((a, b), rows, 1) == pytest.approx(expected)
    assert distinct_within((a, b), 0, 1) == 0


def test_a_window_counts_the_keys_active_in_it_and_is_no_upper_bound() -> None:
    stats = ", 'stats.active.k' = '111', 'stats.new-per-second.k' = '6', 'stats.hot-share.k' = '0.5'"
    e = estimate(TUMBLE, stats)
    per_window = 1 + expected_distinct(111 + 6 * 10, 500)  # 1,000 rows a window, half on the hot key
    open_windows = (10 + 1 + 1) / 10  # size + delay + batch over the slide
    assert e.plateau_entries == pytest.approx(per_window * open_windows)
    assert not e.upper_bound
    assert "keys come and go: 111 keys active at a time, 6 new per second, 50% of rows on one hot key ('stats.active.k' for `f`)" in e.assumptions
    # without the statistics, every row of a window may be a key of its own
    bare = estimate(TUMBLE)
    assert bare.upper_bound and bare.plateau_entries == pytest.approx(1000 * open_windows)


def test_a_session_gap_and_a_ttl_keep_the_keys_of_their_span() -> None:
    stats = ", 'stats.active.k' = '1000', 'stats.new-per-second.k' = '2', 'stats.hot-share.k' = '0.75'"
    session = estimate("SELECT k, SESSION_START(ts, INTERVAL '5' SECOND), COUNT(*) FROM f GROUP BY k, SESSION(ts, INTERVAL '5' SECOND);", stats)
    assert not session.upper_bound and session.formula.startswith("distinct(k) within (")
    assert session.plateau_entries < 100 * 7  # fewer keys than the rows of the span
    ttl = estimate("SELECT /*+ STATE_TTL('f' = '10 s') */ k, COUNT(*) FROM f GROUP BY k;", stats)
    seconds = 10 + 1  # the TTL and one batch
    assert ttl.plateau_entries == pytest.approx(1 + expected_distinct(1000 + 2 * seconds, 100 * seconds * 0.25), rel=0.01)


def test_partitions_of_a_match_recognize_come_from_both_key_columns() -> None:
    stats = (", 'stats.active.k' = '111', 'stats.hot-share.k' = '0.5', "
             "'stats.active.u' = '1010', 'stats.hot-share.u' = '0.75'")
    sql = ("SELECT * FROM f MATCH_RECOGNIZE (PARTITION BY k, u ORDER BY ts MEASURES C.ts AS t ONE ROW PER MATCH "
           "AFTER MATCH SKIP PAST LAST ROW PATTERN (A C) WITHIN INTERVAL '5' SECOND DEFINE C AS C.v < A.v)")
    e = estimate(sql + ";", stats)
    assert not e.upper_bound
    rows = 100 * (5 + 1 + 1)  # the rows held: 100 a second for WITHIN + the watermark delay + a batch
    assert e.plateau_entries == pytest.approx(distinct_within((KeyActivity(111, hot_share=0.5), KeyActivity(1010, hot_share=0.75)), rows, rows / 100))
    # one column without activity or domain: every row may be a partition of its own
    only_k = estimate(sql + ";", ", 'stats.active.k' = '111'")
    assert only_k.upper_bound


def test_the_nexmark_generator_gives_its_own_activity() -> None:
    table = TableDef("g", (), options={"connector": "nexmark", "first-event.rate": "1000", "bid.hot-ratio.bidders": "2"})
    auction = Nexmark().column_activity(table, "bid.auction")
    # the hot auction is the first of the latest 100: it moves once every 100 new auctions
    assert auction == KeyActivity(111, 1000 * 3 / 50, 0.5, "the Nexmark generator's draws of `bid.auction`", 1000 * 3 / 50 / 100)
    bidder = Nexmark().column_activity(table, "bid.bidder")
    assert bidder is not None and (bidder.active, bidder.new_per_second, bidder.hot_share) == (1010, 20, 0.5)
    assert Nexmark().column_activity(table, "bid.price") is None  # not an id the generator draws
