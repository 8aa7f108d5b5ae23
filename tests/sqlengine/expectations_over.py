"""What the OVER cases of the streaming = batch corpus must give, in plain Python: each row with
its frame's aggregates, the frame taken per partition in event-time order (the corpus's bids
have distinct times, so a ROWS frame is well defined)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from tests.sqlengine.expectations import Data, Row, Rows, java_div


def _frames(rows: list[Row], key: str, frame: Callable[[list[Row], int], list[Row]]) -> list[tuple[Row, list[Row]]]:
    parts: dict[Any, list[Row]] = defaultdict(list)
    for r in rows:
        parts[r[key]].append(r)
    out = []
    for part in parts.values():
        part.sort(key=lambda r: r["ts"])
        out += [(r, frame(part, i)) for i, r in enumerate(part)]
    return out


def _values(frame: list[Row], column: str) -> list[Any]:
    return [r[column] for r in frame if r[column] is not None]


def expect_over_rows(w: Data) -> Rows:
    """SUM(price) over the row and the two before it, per item."""
    out = []
    for r, frame in _frames(w.bids, "item", lambda part, i: part[max(0, i - 2) : i + 1]):
        prices = _values(frame, "price")
        out.append((r["item"], r["ts"], r["price"], sum(prices) if prices else None))
    return out


def expect_over_range(w: Data) -> Rows:
    """COUNT(*), SUM(amount), integer AVG(price) and MAX(price) over the 10 s up to each row, per item."""
    span = dt.timedelta(seconds=10)
    out = []
    for r, frame in _frames(w.bids, "item", lambda part, i: [x for x in part if part[i]["ts"] - span <= x["ts"] <= part[i]["ts"]]):
        prices, amounts = _values(frame, "price"), _values(frame, "amount")
        avg = java_div(sum(prices), len(prices)) if prices else None
        out.append((r["item"], r["ts"], len(frame), sum(amounts) if amounts else None, avg, max(prices) if prices else None))
    return out


def expect_over_unbounded(w: Data) -> Rows:
    """A running SUM and MIN of the price per bidder."""
    out = []
    for r, frame in _frames(w.bids, "bidder", lambda part, i: part[: i + 1]):
        prices = _values(frame, "price")
        out.append((r["bidder"], r["ts"], sum(prices) if prices else None, min(prices) if prices else None))
    return out


def expect_over_by_price(w: Data) -> Rows:
    """Per item, each bid with the count of bids at or below its price and their highest amount
    (the default RANGE frame: peers included; NULL prices first, peers of each other)."""
    out = []
    for r in w.bids:
        p = r["price"]
        frame = [x for x in w.bids if x["item"] == r["item"] and (x["price"] is None or (p is not None and x["price"] <= p))]
        amounts = _values(frame, "amount")
        out.append((r["item"], p, len(frame), max(amounts) if amounts else None))
    return out


def expect_over_top_prices(w: Data) -> Rows:
    """q6's shape: each item's highest price (a Top-1 over bids that updates as higher bids come),
    then per bidder of those rows the sum of the prices of its last two, ordered by item."""
    best: dict[Any, Row] = {}
    for r in w.bids:  # ORDER BY price DESC (NULLs last), ts: the highest price, its earliest bid
        if r["item"] is None:
            continue
        rank = (r["price"] is None, -(r["price"] or 0), r["ts"])
        held = best.get(r["item"])
        if held is None or rank < (held["price"] is None, -(held["price"] or 0), held["ts"]):
            best[r["item"]] = r
    out = []
    tops = sorted(best.values(), key=lambda r: r["item"])
    for r in tops:
        part = [x for x in tops if x["bidder"] == r["bidder"]]
        i = part.index(r)
        prices = _values(part[max(0, i - 1) : i + 1], "price")
        out.append((r["bidder"], r["item"], r["price"], sum(prices) if prices else None))
    return out
