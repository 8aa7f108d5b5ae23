"""The nexmark connector: the Nexmark benchmark's person/auction/bid events, generated inside
Spark. Bounded by 'events.num' or 'stop-at' unless 'keep-alive' keeps it open."""

from __future__ import annotations

from catalog.activity import KeyActivity
from catalog.connectors.base import CONNECTOR, ConnectorSpec, Rate
from catalog.model import TableDef
from catalog.option_types import opt

# Columns with a fixed, small set of values (the generator draws them from fixed lists or
# ranges); every id column grows without bound.
DOMAINS = {
    "event_type": 3,
    "auction.category": 5,
    "person.state": 6,
    "person.city": 10,
    "bid.channel": 10_004,  # 4 hot channels + 10,000 others
}

# How the generator draws ids (sqlengine.connectors.nexmark_events), which the estimates model:
# a bid's auction is hot (the first of the latest HOT_BATCH auctions) or uniform over the auctions
# in flight and a few ahead; a bidder or seller is hot or uniform over the active people
HOT_BATCH = 100
PERSON_ID_LEAD = 10
AUCTION_ID_LEAD = 10
NUM_ACTIVE_PEOPLE = 1000
NUM_IN_FLIGHT_AUCTIONS = 100
# column -> (ids drawn from at a time, the event kind whose ids enter use, the option of its hot ratio)
ACTIVE_IDS = {
    "bid.auction": (NUM_IN_FLIGHT_AUCTIONS + 1 + AUCTION_ID_LEAD, "auction", "bid.hot-ratio.auctions"),
    "bid.bidder": (NUM_ACTIVE_PEOPLE + PERSON_ID_LEAD, "person", "bid.hot-ratio.bidders"),
    "auction.seller": (NUM_ACTIVE_PEOPLE + PERSON_ID_LEAD, "person", "auction.hot-ratio.sellers"),
}

# The generator's strings (sqlengine.connectors.nexmark_events), average characters: names from
# fixed lists, random words of 3 to max-1 letters, the channels' names and URLs (measured on
# 100,000 events); 'extra' pads each event to '<kind>.avg-size' bytes past the size the generator
# counts: EXTRA_BASE and the strings named in EXTRA_COUNTS (a bid's channel and URL are not)
STRING_LENGTHS = {
    "person": {"name": 11, "emailAddress": 12, "creditCard": 19, "city": 7, "state": 2},
    "auction": {"itemName": 10, "description": 51},
    "bid": {"channel": 8, "url": 63},
}
EXTRA_BASE = {"person": 8, "auction": 48, "bid": 32}
EXTRA_COUNTS = {"person": tuple(STRING_LENGTHS["person"]), "auction": ("itemName", "description"), "bid": ()}
AVG_SIZE_DEFAULTS = {"person": 200, "auction": 500, "bid": 100}


class Nexmark(ConnectorSpec):
    name = "nexmark"
    options = (
        CONNECTOR,
        opt("first-event.rate", "int", "10000", "Events per second of event time: event i happens at base-time + i / rate."),
        opt("next-event.rate", "int", "10000", "Accepted; like Nexmark's generator, only "
            "'first-event.rate' sets the event-time spacing."),
        opt("events.num", "long", "0", "Total events; 0 means unbounded."),
        opt("keep-alive", "boolean", "false", "After the last event the source stays open (the job does not end)."),
        opt("stop-at", "long", "-1", "Stop generating after this many events (-1: no stop)."),
        opt("max-emit-speed", "boolean", "true",
            "Emit as fast as possible; false: emit 'first-event.rate' events per wall-clock second."),
        opt("person.proportion", "int", "1", "Share of person events."),
        opt("auction.proportion", "int", "3", "Share of auction events."),
        opt("bid.proportion", "int", "46", "Share of bid events."),
        opt("person.avg-size", "memory", "200b", "Average person size (pads 'extra')."),
        opt("auction.avg-size", "memory", "500b", "Average auction size (pads 'extra')."),
        opt("bid.avg-size", "memory", "100b", "Average bid size (pads 'extra')."),
        opt("bid.hot-ratio.auctions", "int", "2", "A bid is for a hot auction with probability 1 - 1/ratio."),
        opt("bid.hot-ratio.bidders", "int", "4", "A bid is by a hot bidder with probability 1 - 1/ratio."),
        opt("auction.hot-ratio.sellers", "int", "4", "An auction is by a hot seller with probability 1 - 1/ratio."),
        opt("rate.shape", "enum", "SQUARE", "Not modelled: the rate is constant.", choices=("SQUARE", "SINE"), ignored=True),
        opt("rate.period", "duration", "600 s", "Not modelled: the rate is constant.", ignored=True),
        opt("rate.limited", "boolean", "false", "Not modelled.", ignored=True),
        opt("base-time", "string", "2020-01-01 00:00:00", "Event time of event 0: a UTC timestamp or epoch milliseconds.",
            flink_name=False),
        opt("seed", "long", "0", "Seed of the generator: same seed, same events.", flink_name=False),
        opt("rows-per-batch", "long", "1000000", "Events per micro-batch of an unbounded source at max emit speed.",
            flink_name=False),
    )
    source = True
    sink = False
    description = "The Nexmark benchmark's person/auction/bid event stream, deterministic and computed inside Spark."

    def rows(self, table: TableDef) -> int | None:
        """Events generated: 'events.num' (0: no end), cut at 'stop-at' (-1: no stop)."""
        values = self.values(table)
        events, stop_at = values.integer("events.num") or 0, values.integer("stop-at")
        total = events if events > 0 else None
        if stop_at is not None and stop_at >= 0:
            total = stop_at if total is None else min(total, stop_at)
        return total

    def bounded(self, table: TableDef) -> bool:
        return self.rows(table) is not None and not self.values(table).flag("keep-alive")

    def one_batch(self, table: TableDef) -> bool:
        return self.bounded(table)

    def rate(self, table: TableDef) -> Rate | None:
        value = self.values(table).number("first-event.rate")
        if value is None:
            return None
        shown = table.options.get("first-event.rate", "10000")
        return Rate(value, f"nexmark 'first-event.rate' = {shown} events/s for `{table.name}` (all event types)")

    def column_domain(self, table: TableDef, path: str) -> int | None:
        return DOMAINS.get(path)

    def column_activity(self, table: TableDef, path: str) -> KeyActivity | None:
        """Auctions of bids, bidders and sellers: ids drawn from those in use (the people
        active once the generator has made 1,000 of them, which takes 50,000 events at the
        default mix), with new ones entering as persons and auctions are generated."""
        if path not in ACTIVE_IDS:
            return None
        active, kind, hot_option = ACTIVE_IDS[path]
        values = self.values(table)
        rate = values.number("first-event.rate") or 10_000.0
        shares = dict(zip(("person", "auction", "bid"), self.proportions(table), strict=True))
        ratio = values.number(hot_option) or 1.0
        new = rate * shares[kind] / sum(shares.values())
        # the hot id is the first of the latest HOT_BATCH: it moves once every HOT_BATCH new ids
        return KeyActivity(active, new, 1 - 1 / max(ratio, 1.0), f"the Nexmark generator's draws of `{path}`", new / HOT_BATCH)

    def column_avg_length(self, table: TableDef, path: str) -> int | None:
        kind, _, name = path.partition(".")
        if kind not in STRING_LENGTHS:
            return None
        if name != "extra":
            return STRING_LENGTHS[kind].get(name)
        size = self.values(table).memory(f"{kind}.avg-size") or AVG_SIZE_DEFAULTS[kind]
        return max(0, size - EXTRA_BASE[kind] - sum(STRING_LENGTHS[kind][n] for n in EXTRA_COUNTS[kind]))

    def proportions(self, table: TableDef) -> tuple[float, float, float]:
        """The shares of person, auction and bid events (default 1 : 3 : 46)."""
        values = self.values(table)
        shares = [values.number(f"{kind}.proportion") for kind in ("person", "auction", "bid")]
        person, auction, bid = (d if v is None else v for v, d in zip(shares, (1.0, 3.0, 46.0), strict=True))
        return person, auction, bid

    def selectivity(self, table: TableDef, column: str, value: str) -> float | None:
        if column != "event_type":
            return None
        weights = self.proportions(table)
        try:
            return weights[int(value)] / sum(weights)
        except (ValueError, IndexError, ZeroDivisionError):
            return None
