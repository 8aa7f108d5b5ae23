"""The nexmark connector: the Nexmark benchmark's event stream, generated inside Spark.

Options follow the benchmark's Flink source ('first-event.rate', 'events.num', proportions, hot
ratios, average sizes, 'keep-alive', 'stop-at', 'max-emit-speed'), plus our 'seed',
'base-time' and 'rows-per-batch'. Event times depend only on the event number, never on the wall
clock, so a bounded run gives the same events in streaming and batch mode. The table's
``dateTime`` computed column and watermark are the translator's business, not ours.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from catalog.connectors import CONNECTORS
from sqlengine.connectors.base import Connector, SourceRequest, SourceResult
from sqlengine.connectors.generated import ROW, row_numbers
from sqlengine.connectors.nexmark_events import NexmarkConfig, NexmarkEvents
from sqlengine.connectors.options import TableOptions
from sqlengine.spark_connect import default_parallelism

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import DataType
    from sqlglot import exp

    from catalog import TableDef

COLUMNS = ("event_type", "person", "auction", "bid")


def _base_time(opts: TableOptions) -> str:
    text = (opts.string("base-time") or "").strip()
    try:
        if text.lstrip("-").isdigit():  # epoch milliseconds
            moment = dt.datetime.fromtimestamp(int(text) / 1000, dt.UTC)
            moment = moment.replace(tzinfo=None)
        else:
            moment = dt.datetime.fromisoformat(text)
            if moment.tzinfo is not None:
                moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        raise opts.error(
            f"'{text}' is not a timestamp ('2020-01-01 00:00:00') nor epoch milliseconds.",
            "base-time",
        ) from None
    return moment.isoformat(sep=" ", timespec="milliseconds")


def config(opts: TableOptions) -> NexmarkConfig:
    def positive(key: str) -> int:
        value = opts.int(key)
        if value is None or value <= 0:
            raise opts.error(f"must be a whole number above 0, not '{opts.string(key)}'.", key)
        return value

    return NexmarkConfig(
        person_proportion=positive("person.proportion"),
        auction_proportion=positive("auction.proportion"),
        bid_proportion=positive("bid.proportion"),
        rate=positive("first-event.rate"),
        base_time=_base_time(opts),
        seed=opts.int("seed") or 0,
        person_avg_size=opts.bytes("person.avg-size") or 200,
        auction_avg_size=opts.bytes("auction.avg-size") or 500,
        bid_avg_size=opts.bytes("bid.avg-size") or 100,
        hot_auction_ratio=positive("bid.hot-ratio.auctions"),
        hot_bidders_ratio=positive("bid.hot-ratio.bidders"),
        hot_sellers_ratio=positive("auction.hot-ratio.sellers"),
    )


def _kinds(cfg: NexmarkConfig) -> list[tuple[int, str, int, int]]:
    """(event_type, column, proportion, offset of its first event in each epoch)."""
    p, a = cfg.person_proportion, cfg.auction_proportion
    return [
        (0, "person", p, 0),
        (1, "auction", a, p),
        (2, "bid", cfg.bid_proportion, p + a),
    ]


def _kinds_allowed(filters: tuple[exp.Expr, ...]) -> set[int] | None:
    """The event types a conjunct ``event_type = k`` or ``event_type IN (...)`` of the query's filter
    lets through (as the views bid, auction and person filter); None: any."""
    from sqlglot import exp

    from planner.binder.joins import column_literal

    allowed: set[int] | None = None
    for f in filters:
        found = column_literal(f)
        if found is not None:
            col, values = found[0], [found[1]]
        elif isinstance(f, exp.In) and isinstance(f.this, exp.Column) and not f.args.get("query"):
            col, values = f.this, f.expressions
        else:
            continue
        if col.name != "event_type" or not all(isinstance(v, exp.Literal) and not v.is_string for v in values):
            continue
        kinds = {int(v.this) for v in values if v.this.isdigit()}
        allowed = kinds if allowed is None else allowed & kinds
    return allowed


def _count_before(total: int, epoch: int, proportion: int, first: int) -> int:
    """How many of the events 0..total-1 are of the kind at [first, first+proportion)."""
    full, rest = divmod(total, epoch)
    return full * proportion + min(max(rest - first, 0), proportion)


class Nexmark(Connector):
    name = "nexmark"

    def source(self, spark: SparkSession, request: SourceRequest) -> SourceResult:
        from pyspark.sql import functions as F

        table = request.table
        opts = TableOptions(table)
        opts.validate()
        physical = [c.name for c in table.columns if c.kind == "physical"]
        if physical != list(COLUMNS) or any(c.kind == "metadata" for c in table.columns):
            raise opts.error(
                "a nexmark table has the physical columns event_type, person, auction, bid "
                f"(as in the benchmark's DDL), not {', '.join(physical) or 'none'}."
            )
        cfg = config(opts)
        spec = CONNECTORS["nexmark"]
        total = spec.rows(table)  # 'events.num', cut at 'stop-at'
        bounded = spec.bounded(table)  # ... and not kept alive
        if not request.streaming and total is None:
            raise opts.error("batch mode needs a bounded source: set 'events.num'.", "events.num")
        declared = _declared_types(opts, table)
        rows_per_batch = opts.int("rows-per-batch") or 1_000_000
        max_speed = opts.bool("max-emit-speed")
        parts: list[DataFrame] = []
        # only the kinds of event the query's filter lets through (one, emptied, if none: the schema)
        allowed = _kinds_allowed(request.filters)
        kinds = [k for k in _kinds(cfg) if allowed is None or k[0] in allowed]
        for kind, column, proportion, first in kinds or _kinds(cfg)[:1]:
            count = None if total is None else _count_before(total, cfg.total, proportion, first)
            share = proportion / cfg.total
            rows = row_numbers(
                spark,
                streaming=request.streaming,
                total=count,
                partitions=default_parallelism(spark),
                # each kind at its share of the rate, so that all three cover the same events
                rows_per_second=None if max_speed else max(1, round(cfg.rate * share)),
                rows_per_batch=-(-rows_per_batch // cfg.total) * proportion,
                end_of_input=bounded,
            )
            i = F.col(ROW)  # the i-th event of this kind is event number n:
            epoch = F.floor(i / proportion).cast("long")
            n = epoch * cfg.total + first + F.pmod(i, F.lit(proportion))
            ev = NexmarkEvents(F.col(ROW), cfg)
            numbered = rows.select(n.alias(ROW)).select(F.col(ROW), *ev.staged())
            build = {"person": ev.person, "auction": ev.auction, "bid": ev.bid}[column]
            values = {name: build() if name == column else F.lit(None) for name in COLUMNS[1:]}
            values["event_type"] = F.lit(kind)
            parts.append(
                numbered.select(
                    *[values[name].cast(declared[name]).alias(name) for name in COLUMNS]
                )
            )
        # One generator per kind, unioned: each compiles to a small, fast plan; one projection
        # with all three kinds behind CASE is too big for the JIT and ran at half the speed.
        df = parts[0]
        for part in parts[1:]:
            df = df.unionByName(part)
        if not kinds:
            df = df.filter(F.lit(False))
        return SourceResult(df=df, bounded=bounded)


_FIELDS = {
    "person": ["id", "name", "emailAddress", "creditCard", "city", "state", "dateTime", "extra"],
    "auction": ["id", "itemName", "description", "initialBid", "reserve", "dateTime", "expires",
                "seller", "category", "extra"],
    "bid": ["auction", "bidder", "price", "channel", "url", "dateTime", "extra"],
}


def _declared_types(opts: TableOptions, table: TableDef) -> dict[str, DataType]:
    """The DDL's types, checked to have the benchmark's fields, to cast our columns to."""
    from sqlengine.types import UnsupportedType, spark_schema

    try:
        schema = spark_schema([c for c in table.columns if c.kind == "physical"])
    except UnsupportedType as err:
        raise opts.error(str(err)) from None
    out: dict[str, DataType] = {}
    for field in schema.fields:
        want = _FIELDS.get(field.name)
        have = getattr(field.dataType, "fieldNames", lambda: None)()
        if want is not None and have != want:
            raise opts.error(
                f"column `{field.name}` must be ROW<{', '.join(want)}> as in the benchmark's "
                f"DDL, not ROW<{', '.join(have or [])}>."
            )
        out[field.name] = field.dataType
    return out
