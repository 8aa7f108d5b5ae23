"""What the changelog cases of the streaming = batch corpus must give (queries whose result
retracts: Top-N, aggregations and joins over updates, outer joins, ORDER BY ... LIMIT), computed
in plain Python from the input rows."""

from __future__ import annotations

from collections import Counter
from typing import Any

from tests.sqlengine.expectations import Data, Row, Rows, floor_to, java_div


def _by(rows: list[Row], key: str) -> dict[Any, list[Row]]:
    out: dict[Any, list[Row]] = {}
    for r in rows:
        out.setdefault(r[key], []).append(r)
    return out


def _desc_nulls_last(v: Any) -> tuple[bool, Any]:
    """A sort key: descending, NULLs last (Flink's default for DESC)."""
    return (v is None, -(v if v is not None else 0))


def expect_latest_three_per_bidder(w: Data) -> Rows:
    out = []
    for bidder, rows in _by(w.bids, "bidder").items():
        for r in sorted(rows, key=lambda r: r["ts"], reverse=True)[:3]:
            out.append((bidder, r["ts"], r["item"]))
    return out


def expect_count_of_counts(w: Data) -> Rows:
    counts = Counter(len(rows) for rows in _by(w.bids, "bidder").values())
    return list(counts.items())


def _spend(w: Data) -> dict[Any, int | None]:
    out = {}
    for bidder, rows in _by(w.bids, "bidder").items():
        prices = [r["price"] for r in rows if r["price"] is not None]
        out[bidder] = sum(prices) if prices else None
    return out


def expect_top_two_spenders(w: Data) -> Rows:
    ranked = sorted(_spend(w).items(), key=lambda kv: (_desc_nulls_last(kv[1]), kv[0]))
    return [(b, s, i + 1) for i, (b, s) in enumerate(ranked[:2])]


def expect_rank_of_counts(w: Data) -> Rows:
    counts = {b: len(rows) for b, rows in _by(w.bids, "bidder").items()}
    values = sorted(counts.values(), reverse=True)
    out = []
    for b, c in counts.items():
        rank = values.index(c) + 1
        if rank <= 3:
            out.append((b, c, rank))
    return out


def expect_left_join_items(w: Data) -> Rows:
    out = []
    for b in w.bids:
        matches = [i for i in w.items if b["item"] is not None and i["id"] == b["item"] and i["cat"] == 1]
        out += [(b["item"], b["price"], i["ts"]) for i in matches] or [(b["item"], b["price"], None)]
    return out


def expect_join_of_aggregations(w: Data) -> Rows:
    bids = {k: len(v) for k, v in _by(w.bids, "item").items() if k is not None}
    cats = {k: max(i["cat"] for i in v) for k, v in _by(w.items, "id").items() if k is not None}
    return [(k, c, cats[k]) for k, c in bids.items() if k in cats]


def expect_full_join_of_aggregations(w: Data) -> Rows:
    rich = Counter(b["item"] for b in w.bids if b["price"] is not None and b["price"] > 50)
    cat0 = Counter(i["id"] for i in w.items if i["cat"] == 0)
    out: list[tuple[Any, ...]] = []
    for k, c in rich.items():
        matched = k is not None and k in cat0
        out.append((k, c, k if matched else None, cat0[k] if matched else None))
    for k, n in cat0.items():
        if k is None or k not in rich:
            out.append((None, None, k, n))
    return out


def expect_semi_join(w: Data) -> Rows:
    ids = {i["id"] for i in w.items if i["cat"] == 2}
    return [(b["item"], b["price"]) for b in w.bids if b["item"] is not None and b["item"] in ids]


def expect_order_by_limit(w: Data) -> Rows:
    ranked = sorted(w.bids, key=lambda b: (_desc_nulls_last(b["price"]), b["ts"]))
    return [(b["item"], b["price"], b["ts"]) for b in ranked[:5]]


def expect_items_of_latest_bids(w: Data) -> Rows:
    latest = [max(rows, key=lambda r: r["ts"]) for rows in _by(w.bids, "bidder").values()]
    return list(Counter(r["item"] for r in latest).items())


def expect_average_of_maxima(w: Data) -> Rows:
    """Nexmark q4's shape: per item the highest price, then per category (of the item's first
    announcement) the average of those maxima (integer average, as BIGINT AVG is)."""
    first_cat = {}
    for i in sorted(w.items, key=lambda i: i["ts"]):
        if i["id"] is not None:
            first_cat.setdefault(i["id"], i["cat"])
    maxima: dict[Any, list[int]] = {}
    for item, rows in _by(w.bids, "item").items():
        prices = [r["price"] for r in rows if r["price"] is not None]
        if item in first_cat and prices:
            maxima.setdefault(first_cat[item], []).append(max(prices))
    return [(cat, java_div(sum(ms), len(ms))) for cat, ms in maxima.items()]


def expect_group_agg_over_window(w: Data) -> Rows:
    windows: Counter[tuple[Any, Any]] = Counter()
    for b in w.bids:
        windows[(b["item"], floor_to(b["ts"], 10))] += 1
    per_item: dict[Any, list[int]] = {}
    for (item, _), c in windows.items():
        per_item.setdefault(item, []).append(c)
    return [(item, max(cs), len(cs)) for item, cs in per_item.items()]


def expect_group_key_projected_away(w: Data) -> Rows:
    return [(len(rows),) for rows in _by(w.bids, "item").values()]
