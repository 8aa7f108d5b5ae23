import datetime as dt

import pytest
import sqlglot

from catalog import TableDef
from planner.dialect import Flink
from planner.statements.ddl import table_from_create
from sqlengine.connectors import ConnectorError
from tests.fixtures.loader import NEXMARK
from tests.sqlengine.streams import read, run_to_end

pytestmark = pytest.mark.spark

DEFINES = {"TPS": "10000", "EVENTS_NUM": "5000", "PERSON_PROPORTION": "1",
           "AUCTION_PROPORTION": "3", "BID_PROPORTION": "46"}


def nexmark_table(**overrides) -> TableDef:
    """The benchmark's own DDL (tests/fixtures/nexmark/ddl_gen.sql), variables filled in."""
    sql = (NEXMARK / "ddl_gen.sql").read_text()
    for name, value in DEFINES.items():
        sql = sql.replace("${" + name + "}", value)
    tdef = table_from_create(sqlglot.parse_one(sql, read=Flink))
    return tdef.with_options({**tdef.options, **overrides})


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory):
    """5,000 events, generated once as a bounded stream run to its end."""
    tmp = tmp_path_factory.mktemp("nexmark")
    result = read(spark, nexmark_table(), tmp / "job")
    assert result.bounded is True
    rows, query = run_to_end(spark, result.df, tmp / "ck")
    assert not query.isActive
    return rows


def test_a_bounded_stream_ends_with_exactly_events_num_events_in_proportion(events):
    assert len(events) == 5000
    kinds = [r.event_type for r in events]
    assert (kinds.count(0), kinds.count(1), kinds.count(2)) == (100, 300, 4600)
    for r in events:  # exactly the struct of its type is set
        assert [r.person is not None, r.auction is not None, r.bid is not None] == [
            r.event_type == k for k in (0, 1, 2)
        ]


@pytest.mark.parametrize("where, kinds", [
    ("event_type = 2", {2}),
    ("event_type IN (0, 1)", {0, 1}),
    ("1 = event_type", {1}),
    ("event_type = 9", set()),
])
def test_a_filter_on_the_event_type_makes_only_those_events(spark, tmp_path, events, where, kinds):
    """The query's filter reaches the generator (the views bid, auction and person): it makes
    only the kinds let through, the same events as before, and no rows for a kind that is none."""
    result = read(spark, nexmark_table(), tmp_path / "job", filters=(sqlglot.parse_one(where),))
    rows, _ = run_to_end(spark, result.df, tmp_path / "ck")
    assert {r.event_type for r in rows} == kinds
    assert sorted(map(str, rows)) == sorted(str(r) for r in events if r.event_type in kinds)


def test_event_time_follows_the_event_number_not_the_wall_clock(events):
    base = dt.datetime(2020, 1, 1)
    times = sorted(
        (r.person or r.auction or r.bid)["dateTime"] for r in events
    )
    # 10,000 events per second: event n happens at n * 0.1 ms, truncated to milliseconds
    assert times[0] == base and times[-1] == base + dt.timedelta(milliseconds=499)
    assert times[:11] == [base] * 10 + [base + dt.timedelta(milliseconds=1)]


def test_ids_and_references(events):
    persons = sorted(r.person.id for r in events if r.person)
    auctions = sorted(r.auction.id for r in events if r.auction)
    assert persons == list(range(1000, 1100))
    assert auctions == list(range(1000, 1300))
    for r in events:
        if r.auction:
            a = r.auction
            assert 1000 <= a.seller <= max(persons) + 10
            assert a.expires > a.dateTime and a.reserve >= a.initialBid >= 100
            assert 10 <= a.category <= 14
        if r.bid:
            b = r.bid
            assert 1000 <= b.auction <= max(auctions) + 10
            assert 1000 <= b.bidder <= max(persons) + 10
            assert 100 <= b.price <= 100_000_000
    bidders = [r.bid.bidder for r in events if r.bid]
    hot = max(set(bidders), key=bidders.count)
    assert bidders.count(hot) > len(bidders) / 4  # hot bidders: 3 in 4 bids go to the hot one


def test_channels_have_one_url_each(events):
    urls: dict[str, set[str]] = {}
    for r in events:
        if r.bid:
            urls.setdefault(r.bid.channel, set()).add(r.bid.url)
    assert all(len(u) == 1 for u in urls.values())
    assert {"Google", "Facebook", "Baidu", "Apple"} <= set(urls)
    assert any("&channel_id=" in next(iter(u)) for c, u in urls.items() if c.startswith("channel-"))


def test_extra_pads_bids_to_their_average_size(events):
    sizes = [len(r.bid.extra) for r in events if r.bid]
    assert min(sizes) >= 54 and max(sizes) <= 82  # 100 bytes - 32 of fields, +-20%


def test_the_connector_knows_the_average_length_of_each_string_it_generates(events):
    """The state estimates size stored rows with the nexmark connector's model of its strings
    (catalog.connectors.nexmark.STRING_LENGTHS and the padding of 'extra'): it must be the
    generator's, within 15 % (the 5,000 events hold 100 persons)."""
    from catalog.connectors.nexmark import STRING_LENGTHS, Nexmark

    table = nexmark_table()
    for kind, names in STRING_LENGTHS.items():
        rows = [getattr(r, kind) for r in events if getattr(r, kind) is not None]
        for name in (*names, "extra"):
            measured = sum(len(row[name]) for row in rows) / len(rows)
            modelled = Nexmark().column_avg_length(table, f"{kind}.{name}")
            assert modelled is not None and abs(modelled - measured) <= max(1.0, 0.15 * measured), (kind, name, measured)


def test_batch_mode_gives_the_same_events(spark, tmp_path, events):
    batch = read(spark, nexmark_table(), tmp_path / "job", streaming=False).df.collect()
    assert sorted(map(str, batch)) == sorted(map(str, events))


def test_options_change_proportions_seed_and_bounds(spark, tmp_path):
    opts = {"events.num": "0", "stop-at": "90", "person.proportion": "1",
            "auction.proportion": "1", "bid.proportion": "1", "seed": "3",
            "base-time": "2024-06-01 12:00:00", "first-event.rate": "1000"}
    rows = read(spark, nexmark_table(**opts), tmp_path / "job", streaming=False).df.collect()
    assert [r.event_type for r in rows].count(0) == 30 and len(rows) == 90
    first = min((r.person or r.auction or r.bid)["dateTime"] for r in rows)
    last = max((r.person or r.auction or r.bid)["dateTime"] for r in rows)
    assert (first, last) == (dt.datetime(2024, 6, 1, 12), dt.datetime(2024, 6, 1, 12, 0, 0, 89000))


def test_keep_alive_and_no_events_num_are_unbounded(spark, tmp_path):
    assert read(spark, nexmark_table(**{"keep-alive": "true"}), tmp_path / "j").bounded is False
    assert read(spark, nexmark_table(**{"events.num": "0"}), tmp_path / "j").bounded is False
    with pytest.raises(ConnectorError, match="batch mode needs a bounded source"):
        read(spark, nexmark_table(**{"events.num": "0"}), tmp_path / "j", streaming=False)


def test_a_table_that_is_not_nexmark_shaped_is_refused(spark, tmp_path):
    tdef = nexmark_table()
    wrong = TableDef("nx", tdef.columns[:2], options=tdef.options)
    with pytest.raises(ConnectorError, match="event_type, person, auction, bid"):
        read(spark, wrong, tmp_path / "job")
