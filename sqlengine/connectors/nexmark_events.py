"""Nexmark events as Spark expressions of the event number.

Follows the benchmark generator's model (nexmark/nexmark, GeneratorConfig and the Person/Auction/
BidGenerator classes), re-expressed as pure functions of the event number n so that Spark can
compute any event on any partition:
- event n is a person, an auction or a bid by n mod (p+a+b) against the proportions p:a:b
  (the connector generates each kind from its own row numbers: the i-th bid is event
  (i div b) * (p+a+b) + p + a + (i mod b), and so on);
- event time is base + floor(n * 1e6 / rate) microseconds, truncated to milliseconds;
- person and auction ids are the count of persons / auctions before n (+1000), so bids and
  auctions refer to persons and auctions that exist ("last id" arithmetic per epoch of p+a+b);
- sellers, bidders and bid auctions are "hot" (the first of the latest batch of 100 ids) with
  probability 1 - 1/ratio, else uniform over the active ones (1000 people, 100 auctions in
  flight) plus a few ids just ahead (lead 10);
- prices are 10^(6u) * 100 cents; an auction expires after 1 + uniform(2 * the time until 100
  more auctions are generated) ms; channels are 4 hot ones (half the bids) or one of 10,000 with
  a fixed URL each; 'extra' pads each event to its average size (+-20%).
Differences, on purpose: random draws are hashes of (seed, n, field) instead of one random
stream, so events do not match the Java generator value for value; bidder ids are person ids
(the Java generator adds the first person id twice to bidders, pointing them at no person).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from catalog.connectors.nexmark import (  # the estimates model the same draws
    AUCTION_ID_LEAD,
    EXTRA_BASE,
    HOT_BATCH,
    NUM_ACTIVE_PEOPLE,
    NUM_IN_FLIGHT_AUCTIONS,
    PERSON_ID_LEAD,
)
from sqlengine.connectors.generated import Draws, letter_pool, pool_slice

if TYPE_CHECKING:
    from pyspark.sql import Column

FIRST_PERSON_ID = 1000
FIRST_AUCTION_ID = 1000
FIRST_CATEGORY_ID = 10
NUM_CATEGORIES = 5
CHANNELS = 10_000
HOT_CHANNELS = ("Google", "Facebook", "Baidu", "Apple")
LETTERS = "abcdefghijklmnopqrstuvwxyz"
STATES = ("AZ", "CA", "ID", "OR", "WA", "WY")
CITIES = (
    "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle",
    "Kent", "Cheyenne",
)
FIRST_NAMES = ("Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah",
               "Deiter", "Walter")
LAST_NAMES = ("Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones",
              "Noris")


@dataclass(frozen=True)
class NexmarkConfig:
    person_proportion: int = 1
    auction_proportion: int = 3
    bid_proportion: int = 46
    rate: int = 10_000  # events per second of event time
    base_time: str = "2020-01-01 00:00:00"  # event time of event 0 (a TIMESTAMP_NTZ literal)
    seed: int = 0
    person_avg_size: int = 200
    auction_avg_size: int = 500
    bid_avg_size: int = 100
    hot_auction_ratio: int = 2
    hot_bidders_ratio: int = 4
    hot_sellers_ratio: int = 4

    @property
    def total(self) -> int:
        return self.person_proportion + self.auction_proportion + self.bid_proportion


class NexmarkEvents:
    """Column expressions of event number ``n`` for the Nexmark table's four columns."""

    def __init__(self, n: Column, cfg: NexmarkConfig):
        from pyspark.sql import functions as F

        self.n, self.cfg = n, cfg
        self.draws = Draws(n, cfg.seed)
        self.words = letter_pool(cfg.seed, 2048, LETTERS, space_every=13)
        longest = max(cfg.person_avg_size, cfg.auction_avg_size, cfg.bid_avg_size)
        self.padding = letter_pool(cfg.seed + 1, max(4096, 4 * longest), LETTERS)
        self.epoch = F.floor(n / F.lit(cfg.total)).cast("long")
        self.offset = F.pmod(n, F.lit(cfg.total))

    # Computed once per event in a projection before the events: the event builders use them
    # many times (inside CASE branches, where Spark would recompute them at every use).
    LAST_PERSON = "__sqlengine_last_person"
    LAST_AUCTION = "__sqlengine_last_auction"
    TIME = "__sqlengine_time"
    CHANNEL = "__sqlengine_channel"

    def staged(self) -> list[Column]:
        """The columns to compute before ``person()``, ``auction()``, ``bid()``."""
        from pyspark.sql import functions as F

        c = self.cfg
        p, a = c.person_proportion, c.auction_proportion
        last_person = self.epoch * p + F.least(self.offset, F.lit(p - 1))
        last_auction = (
            F.when(self.offset < p, (self.epoch - 1) * a + (a - 1))
            .when(self.offset >= p + a, self.epoch * a + (a - 1))
            .otherwise(self.epoch * a + self.offset - p)
        )
        time = F.expr(f"TIMESTAMP_NTZ '{c.base_time}'") + self._offset_ms(self.n) * F.expr(
            "INTERVAL '0.001' SECOND"
        )
        return [
            last_person.alias(self.LAST_PERSON),  # base-0 id of the latest person so far
            last_auction.alias(self.LAST_AUCTION),  # base-0 id of the latest auction so far
            time.alias(self.TIME),
            self.draws.below("b.channel", CHANNELS).alias(self.CHANNEL),
        ]

    # -- ids and time (staged) -------------------------------------------------------------------
    def timestamp(self) -> Column:
        from pyspark.sql import functions as F

        return F.col(self.TIME)

    def last_person(self) -> Column:
        from pyspark.sql import functions as F

        return F.col(self.LAST_PERSON)

    def last_auction(self) -> Column:
        from pyspark.sql import functions as F

        return F.col(self.LAST_AUCTION)

    def _offset_ms(self, n: Column) -> Column:
        from pyspark.sql import functions as F

        delay_us = 1_000_000.0 / self.cfg.rate
        return F.floor(n * F.lit(delay_us) / 1000.0).cast("long")

    def _random_person(self, what: str) -> Column:
        from pyspark.sql import functions as F

        people = self.last_person() + 1
        active = F.least(people, F.lit(NUM_ACTIVE_PEOPLE))
        return people - active + self.draws.below(what, active + PERSON_ID_LEAD)

    def _random_auction(self, what: str) -> Column:
        from pyspark.sql import functions as F

        last = self.last_auction()
        low = F.greatest(last - NUM_IN_FLIGHT_AUCTIONS, F.lit(0))
        return low + self.draws.below(what, last - low + 1 + AUCTION_ID_LEAD)

    def _hot(self, what: str, ratio: int) -> Column:
        return self.draws.below(what, ratio) > 0

    # -- strings -----------------------------------------------------------------------------------
    def _string(
        self, what: str, max_length: int, draws: Draws | None = None, pool: str | None = None
    ) -> Column:
        """Nexmark's nextString: 3..max-1 random letters with occasional spaces, trimmed."""
        from pyspark.sql import functions as F

        d = draws or self.draws
        length = F.lit(3) + d.below(f"{what}#len", max_length - 3)
        return F.trim(pool_slice(d, what, pool or self.words, length))

    def _extra(self, what: str, current_size: Column, average: int) -> Column:
        """Padding so that the event's size averages ``average`` bytes (+-20%)."""
        from pyspark.sql import functions as F

        desired = F.lit(average) - current_size
        delta = F.round(desired * 0.2).cast("long")
        size = desired - delta + F.when(
            delta > 0, self.draws.below(f"{what}#size", F.greatest(delta * 2, F.lit(1)))
        ).otherwise(F.lit(0))
        padding = pool_slice(self.draws, what, self.padding, size)
        return F.when(desired < 0, F.lit("")).otherwise(padding)

    def _price(self, what: str) -> Column:
        from pyspark.sql import functions as F

        return F.round(F.pow(F.lit(10.0), self.draws.unit(what) * 6.0) * 100.0).cast("long")

    # -- events ----------------------------------------------------------------------------------
    def person(self) -> Column:
        from pyspark.sql import functions as F

        d = self.draws
        name = F.concat(
            d.choice("p.first", list(FIRST_NAMES)), F.lit(" "), d.choice("p.last", list(LAST_NAMES))
        )
        email = F.concat(
            self._string("p.email1", 7), F.lit("@"), self._string("p.email2", 5), F.lit(".com")
        )
        card = F.concat_ws(
            " ", *[F.lpad(d.below(f"p.card{i}", 10_000).cast("string"), 4, "0") for i in range(4)]
        )
        city, state = d.choice("p.city", list(CITIES)), d.choice("p.state", list(STATES))
        size = F.lit(EXTRA_BASE["person"])
        for text in (name, email, card, city, state):
            size = size + F.length(text)
        return F.struct(
            (self.last_person() + FIRST_PERSON_ID).alias("id"),
            name.alias("name"),
            email.alias("emailAddress"),
            card.alias("creditCard"),
            city.alias("city"),
            state.alias("state"),
            self.timestamp().alias("dateTime"),
            self._extra("p.extra", size, self.cfg.person_avg_size).alias("extra"),
        )

    def auction(self) -> Column:
        from pyspark.sql import functions as F

        c = self.cfg
        hot_seller = (self.last_person() / HOT_BATCH).cast("long") * HOT_BATCH
        seller = F.when(self._hot("a.hot", c.hot_sellers_ratio), hot_seller).otherwise(
            self._random_person("a.seller")
        )
        initial = self._price("a.initial")
        events_ahead = HOT_BATCH * c.total // c.auction_proportion  # until 100 more auctions
        horizon_ms = self._offset_ms(self.n + events_ahead) - self._offset_ms(self.n)
        length_ms = F.lit(1) + self.draws.below("a.length", F.greatest(horizon_ms * 2, F.lit(1)))
        name, desc = self._string("a.name", 20), self._string("a.desc", 100)
        size = F.lit(EXTRA_BASE["auction"]) + F.length(name) + F.length(desc)
        return F.struct(
            (self.last_auction() + FIRST_AUCTION_ID).alias("id"),
            name.alias("itemName"),
            desc.alias("description"),
            initial.alias("initialBid"),
            (initial + self._price("a.reserve")).alias("reserve"),
            self.timestamp().alias("dateTime"),
            (self.timestamp() + length_ms * F.expr("INTERVAL '0.001' SECOND")).alias("expires"),
            (seller + FIRST_PERSON_ID).alias("seller"),
            (FIRST_CATEGORY_ID + self.draws.below("a.category", NUM_CATEGORIES)).alias("category"),
            self._extra("a.extra", size, c.auction_avg_size).alias("extra"),
        )

    def bid(self) -> Column:
        from pyspark.sql import functions as F

        c = self.cfg
        hot_auction = (self.last_auction() / HOT_BATCH).cast("long") * HOT_BATCH
        auction = F.when(self._hot("b.hot-auction", c.hot_auction_ratio), hot_auction).otherwise(
            self._random_auction("b.auction")
        )
        hot_bidder = (self.last_person() / HOT_BATCH).cast("long") * HOT_BATCH + 1
        bidder = F.when(self._hot("b.hot-bidder", c.hot_bidders_ratio), hot_bidder).otherwise(
            self._random_person("b.bidder")
        )
        hot = self._hot("b.hot-channel", 2)
        hot_index = self.draws.below("b.hot-index", len(HOT_CHANNELS)) + 1
        channel_no = F.col(self.CHANNEL)
        hot_channel = F.element_at(F.array(*map(F.lit, HOT_CHANNELS)), hot_index.cast("int"))
        hot_url = F.element_at(F.array(*map(F.lit, self._hot_urls())), hot_index.cast("int"))
        channel = F.when(hot, hot_channel).otherwise(
            F.concat(F.lit("channel-"), channel_no.cast("string"))
        )
        url = F.when(hot, hot_url).otherwise(
            self._channel_url(channel_no)
        )
        return F.struct(
            (auction + FIRST_AUCTION_ID).alias("auction"),
            (bidder + FIRST_PERSON_ID).alias("bidder"),
            self._price("b.price").alias("price"),
            channel.alias("channel"),
            url.alias("url"),
            self.timestamp().alias("dateTime"),
            self._extra("b.extra", F.lit(EXTRA_BASE["bid"]), c.bid_avg_size).alias("extra"),
        )

    # -- channel urls ------------------------------------------------------------------------------
    def _hot_urls(self) -> list[str]:
        import random

        rng = random.Random(self.cfg.seed + 7)

        def part() -> str:
            n = 3 + rng.randrange(2)
            return "".join(
                "_" if rng.randrange(13) == 0 else rng.choice(LETTERS) for _ in range(n)
            )

        return [
            f"https://www.nexmark.com/{part()}/{part()}/{part()}/item.htm?query=1"
            for _ in HOT_CHANNELS
        ]

    def _channel_url(self, channel_no: Column) -> Column:
        """A fixed URL per channel number; 9 in 10 carry '&channel_id=' + |Integer.reverse(no)|."""
        from pyspark.sql import functions as F

        per_channel = Draws(channel_no, self.cfg.seed)
        pool = letter_pool(self.cfg.seed + 3, 1024, LETTERS, space_every=13).replace(" ", "_")
        parts = [self._string(f"url{i}", 5, per_channel, pool) for i in range(3)]
        base = F.concat(
            F.lit("https://www.nexmark.com/"), parts[0], F.lit("/"), parts[1], F.lit("/"),
            parts[2], F.lit("/item.htm?query=1"),
        )
        # |Integer.reverse(no)| as Java computes it. Branch-free on purpose: Spark does not share
        # subexpressions inside CASE branches, and repeating the bit sum there was 10x slower.
        reversed_u = F.lit(0).cast("long")
        for bit in range(CHANNELS.bit_length()):  # channel numbers have 14 bits
            set_bit = F.shiftright(channel_no, bit).bitwiseAND(1)
            reversed_u = reversed_u + F.shiftleft(set_bit, 31 - bit)
        low = channel_no.bitwiseAND(1)  # set: the reversed int is negative
        java_abs = low * (1 << 32) + reversed_u * (F.lit(1) - low * 2)
        # abs(Integer.MIN_VALUE) stays negative in Java; only channel 1 reverses to it
        id_text = F.when(channel_no == 1, F.lit(str(-(1 << 31)))).otherwise(java_abs.cast("string"))
        suffix = F.when(
            per_channel.below("url.id", 10) > 0, F.concat(F.lit("&channel_id="), id_text)
        ).otherwise(F.lit(""))
        return F.concat(base, suffix)
