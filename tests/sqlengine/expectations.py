"""What each case of the streaming = batch corpus must give, computed in plain Python from the
input rows, independently of the engine and of Spark: Flink's semantics written out (windows,
NULLs, integer division, sessions, rankings). corpus.py maps each query to one of these."""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any, Protocol

Row = dict[str, Any]


class Data(Protocol):
    bids: list[Row]
    items: list[Row]


Rows = list[tuple[Any, ...]]
MS = dt.timedelta(milliseconds=1)
ITEM_IDS = [f"i{n}" for n in range(6)]

SEC = dt.timedelta(seconds=1)
EPOCH = dt.datetime(1970, 1, 1)


def floor_to(t: dt.datetime, size_s: int) -> dt.datetime:
    ms = (t - EPOCH) // dt.timedelta(milliseconds=1)
    return EPOCH + dt.timedelta(milliseconds=ms - ms % (size_s * 1000))


def java_div(a: int, b: int) -> int:
    """Integer division truncating toward zero, as Java (and Flink) does."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def split_index(s: str | None, sep: str, i: int) -> str | None:
    if s is None:
        return None
    parts = s.split(sep)
    return parts[i] if 0 <= i < len(parts) else None


def expect_calc(w: Data) -> Rows:
    out = []
    for b in w.bids:
        if not (b["price"] is None or b["price"] > 10):
            continue
        m = re.search(r"id=(\d+)", b["url"])
        out.append(
            (
                b["item"],
                None if b["price"] is None else java_div(b["price"], 7),
                java_div(b["delta"], 2),
                split_index(b["url"], "/", 3),
                split_index(b["url"], "/", 9),
                m.group(1) if m else None,
                b["ts"].strftime("%Y-%m-%d %H:%M"),
                b["amount"] * 2,
                None if b["price"] is None else Decimal("0.908") * b["price"],
            )
        )
    return out


def expect_tumble(w: Data) -> Rows:
    groups: dict = {}
    for b in w.bids:
        start = floor_to(b["ts"], 10)
        g = groups.setdefault((b["item"], start), [])
        g.append(b)
    out = []
    for (item, start), rows in groups.items():
        prices = [r["price"] for r in rows if r["price"] is not None]
        out.append((item, start, start + 10 * SEC, len(rows), sum(prices) if prices else None, max(prices) if prices else None))
    return out


def expect_cumulate(w: Data) -> Rows:
    """CUMULATE(step 5 s, size 20 s): windows [start, start + 5k) of each 20-second window."""
    groups: dict = {}
    for b in w.bids:
        start = floor_to(b["ts"], 20)
        for k in range(1, 5):
            end = start + 5 * k * SEC
            if b["ts"] < end:
                groups.setdefault((start, end), []).append(b["price"])
    return [
        (start, end, len(ps), sum(p for p in ps if p is not None) if any(p is not None for p in ps) else None)
        for (start, end), ps in groups.items()
    ]


def expect_group(w: Data) -> Rows:
    groups: dict = {}
    for b in w.bids:
        groups.setdefault(b["item"], []).append(b)
    out = []
    for item, rows in groups.items():
        prices = [r["price"] for r in rows if r["price"] is not None]
        avg = java_div(sum(prices), len(prices)) if prices else None
        out.append((item, len(rows), len(prices), sum(prices) if prices else None, avg, min(prices) if prices else None))
    return out


def expect_distinct(w: Data) -> Rows:
    return list({(b["item"], b["bidder"]) for b in w.bids})


def expect_count_distinct(w: Data) -> Rows:
    groups: dict = {}
    for b in w.bids:
        groups.setdefault(b["item"], []).append(b)
    out = []
    for item, rows in groups.items():
        prices = {r["price"] for r in rows if r["price"] is not None}
        deltas = {r["delta"] for r in rows}
        rich = {r["bidder"] for r in rows if r["price"] is not None and r["price"] > 50}
        out.append((item, len({r["bidder"] for r in rows}), sum(prices) if prices else None,
                    java_div(sum(deltas), len(deltas)), len(rich)))
    return out


def expect_interval_join(w: Data) -> Rows:
    out = []
    for b in w.bids:
        for i in w.items:
            if b["item"] is not None and b["item"] == i["id"] and i["ts"] - 5 * SEC <= b["ts"] <= i["ts"] + 5 * SEC:
                out.append((b["item"], b["ts"], b["price"], i["cat"]))
    return out


def expect_left_interval_join(w: Data) -> Rows:
    out = []
    for b in w.bids:
        matched = [
            i for i in w.items
            if b["item"] is not None and b["item"] == i["id"] and i["ts"] - 5 * SEC <= b["ts"] <= i["ts"] + 5 * SEC
        ]
        out += [(b["item"], b["ts"], i["cat"]) for i in matched] or [(b["item"], b["ts"], None)]
    return out


def _best(w: Data, key: Callable[[Row], Any], better: Callable[[Row, Row], bool]) -> dict[Any, Row]:
    best: dict = {}
    for b in w.bids:
        k = key(b)
        if k not in best or better(b, best[k]):
            best[k] = b
    return best


def expect_dedup_first(w: Data) -> Rows:
    return [(k, b["ts"], b["price"]) for k, b in _best(w, lambda b: b["item"], lambda x, y: x["ts"] < y["ts"]).items()]


def expect_dedup_last(w: Data) -> Rows:
    return [(k, b["ts"], b["price"]) for k, b in _best(w, lambda b: b["item"], lambda x, y: x["ts"] > y["ts"]).items()]


def _order_key(b: Row, col: str, desc: bool) -> tuple[bool, Any]:
    """Flink's order: NULLs first ascending, last descending; as a key to maximise."""
    v = b[col]
    if desc:
        return (v is not None, v if v is not None else 0)
    return (v is None, -(v if v is not None else 0))


def expect_top1_desc(w: Data) -> Rows:
    def better(x: Row, y: Row) -> bool:  # price DESC, ts ASC
        return (_order_key(x, "price", True), -x["ts"].timestamp()) > (_order_key(y, "price", True), -y["ts"].timestamp())

    return [(k, b["price"], b["ts"]) for k, b in _best(w, lambda b: b["item"], better).items()]


def expect_top1_nulls_first(w: Data) -> Rows:
    def better(x: Row, y: Row) -> bool:  # price ASC (NULLs first), ts DESC
        return (_order_key(x, "price", False), x["ts"]) > (_order_key(y, "price", False), y["ts"])

    return [(k, b["price"], b["ts"]) for k, b in _best(w, lambda b: b["item"], better).items()]


def expect_union(w: Data) -> Rows:
    return [(b["item"], b["price"]) for b in w.bids if b["price"] is not None and b["price"] > 90] + [
        (i["id"], i["cat"]) for i in w.items
    ]


def expect_lookup(w: Data) -> Rows:
    cats = {i: (n % 3, f"L{n}") for n, i in enumerate(ITEM_IDS)}
    return [(b["item"], b["price"], *cats[b["item"]]) for b in w.bids if b["item"] in cats]


# -- windows ----------------------------------------------------------------------------------------


def window_of(t: dt.datetime, size_s: int, offset_s: int = 0) -> dt.datetime:
    """The start of the tumbling window of ``size_s`` seconds (shifted by ``offset_s``) holding t."""
    return floor_to(t - offset_s * SEC, size_s) + offset_s * SEC


def hop_starts(t: dt.datetime, slide_s: int, size_s: int) -> list[dt.datetime]:
    """The starts of every hopping window [s, s + size) that holds t."""
    last = floor_to(t, slide_s)
    return [last - k * slide_s * SEC for k in range(size_s // slide_s)]


def sessions(times: list[dt.datetime], gap_s: int) -> list[tuple[dt.datetime, dt.datetime, int]]:
    """Flink's sessions of these times: a row at t is a window [t, t + gap); overlapping windows
    merge. (start, end, rows) per session."""
    out: list[tuple[dt.datetime, dt.datetime, int]] = []
    for t in sorted(times):
        if out and t < out[-1][1]:
            start, end, n = out[-1]
            out[-1] = (start, max(end, t + gap_s * SEC), n + 1)
        else:
            out.append((t, t + gap_s * SEC, 1))
    return out


def _present(values: Iterable[Any]) -> list[Any]:
    return [v for v in values if v is not None]


def _sum(values: Iterable[Any]) -> Any:
    present = _present(values)
    return sum(present) if present else None


def _max(values: Iterable[Any]) -> Any:
    present = _present(values)
    return max(present) if present else None


def _group(rows: Iterable[Row], key: Callable[[Row], Any]) -> dict[Any, list[Row]]:
    groups: dict[Any, list[Row]] = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    return groups


def expect_calc_case_coalesce(w: Data) -> Rows:
    out = []
    for b in w.bids:
        price = b["price"]
        band = "none" if price is None else "high" if price > 50 else "low"
        out.append((b["bidder"], band, b["item"] if b["item"] is not None else "unknown", len(b["url"]), b["url"][8:12].upper()))
    return out


def expect_view_filter(w: Data) -> Rows:
    return [(b["item"], b["price"]) for b in w.bids if b["price"] is not None and b["price"] < 50 and b["bidder"] > 3]


def expect_tumble_window_time(w: Data) -> Rows:
    groups = _group(w.bids, lambda b: window_of(b["ts"], 10))
    return [(s, s + 10 * SEC - MS, len(rows), min(r["bidder"] for r in rows)) for s, rows in groups.items()]


def expect_hop(w: Data) -> Rows:
    groups: dict[Any, list[Row]] = defaultdict(list)
    for b in w.bids:
        for s in hop_starts(b["ts"], 5, 15):
            groups[(b["item"], s)].append(b)
    out = []
    for (item, s), rows in groups.items():
        prices = _present(r["price"] for r in rows)
        out.append((item, s, s + 15 * SEC, len(rows), java_div(sum(prices), len(prices)) if prices else None))
    return out


def expect_tumble_offset(w: Data) -> Rows:
    groups = _group(w.bids, lambda b: window_of(b["ts"], 20, 7))
    return [(s, s + 20 * SEC, len(rows)) for s, rows in groups.items()]


def expect_tumble_legacy(w: Data) -> Rows:
    groups = _group(w.bids, lambda b: (b["item"], window_of(b["ts"], 30)))
    return [(item, s, s + 30 * SEC, _max(r["price"] for r in rows), len(rows)) for (item, s), rows in groups.items()]


def expect_hop_legacy(w: Data) -> Rows:
    groups: dict[Any, list[Row]] = defaultdict(list)
    for b in w.bids:
        for s in hop_starts(b["ts"], 10, 30):
            groups[s].append(b)
    return [(s, sum(r["delta"] for r in rows)) for s, rows in groups.items()]


def expect_session_legacy(w: Data) -> Rows:
    out = []
    for bidder, rows in _group(w.bids, lambda b: b["bidder"]).items():
        out += [(bidder, s, e, n) for s, e, n in sessions([r["ts"] for r in rows], 6)]
    return out


def expect_session_tvf(w: Data) -> Rows:
    out = []
    for item, rows in _group(w.bids, lambda b: b["item"]).items():
        out += [(item, s, e, n) for s, e, n in sessions([r["ts"] for r in rows], 4)]
    return out


def expect_window_filter_having(w: Data) -> Rows:
    groups = _group((b for b in w.bids if b["bidder"] != 3), lambda b: (b["item"], window_of(b["ts"], 10)))
    return [
        (item, s, len(rows), sum(1 for r in rows if r["price"] is not None and r["price"] > 50))
        for (item, s), rows in groups.items()
        if len(rows) > 1
    ]


def _counts_per_item_window(w: Data, size_s: int = 10) -> dict[tuple[Any, dt.datetime], int]:
    return {k: len(rows) for k, rows in _group(w.bids, lambda b: (b["item"], window_of(b["ts"], size_s))).items()}


def expect_cascaded_windows(w: Data) -> Rows:
    per_window: dict[dt.datetime, list[int]] = defaultdict(list)
    for (_, s), c in _counts_per_item_window(w).items():
        per_window[s].append(c)
    return [(s, s + 10 * SEC, max(cs), sum(cs)) for s, cs in per_window.items()]


def expect_cascaded_rewindow(w: Data) -> Rows:
    per_window: dict[dt.datetime, int] = defaultdict(int)
    for (_, s), c in _counts_per_item_window(w).items():
        window_time = s + 10 * SEC - MS  # the inner window's time: its last instant
        per_window[window_of(window_time, 30)] += c
    return [(s, s + 30 * SEC, total) for s, total in per_window.items()]


def expect_group_expressions(w: Data) -> Rows:
    groups = _group(w.bids, lambda b: (b["bidder"] % 3, b["ts"].strftime("%H:%M")))
    return [
        (b3, mnt, len(rows), sum((r["amount"] for r in rows), Decimal(0)), max(r["url"] for r in rows),
         sum(1 for r in rows if r["price"] is None))
        for (b3, mnt), rows in groups.items()
    ]


def expect_count_distinct_window(w: Data) -> Rows:
    out = []
    for s, rows in _group(w.bids, lambda b: window_of(b["ts"], 10)).items():
        items = {r["item"] for r in rows if r["item"] is not None}
        pairs = {(r["bidder"], r["item"]) for r in rows if r["item"] is not None}
        out.append((s, len(items), len(pairs)))
    return out


def _interval_matches(w: Data) -> list[tuple[Row, Row]]:
    return [
        (b, i)
        for b in w.bids
        for i in w.items
        if b["item"] is not None and b["item"] == i["id"] and i["ts"] - 5 * SEC <= b["ts"] <= i["ts"] + 5 * SEC
    ]


def expect_interval_join_then_window(w: Data) -> Rows:
    groups = _group((b for b, _ in _interval_matches(w)), lambda b: window_of(b["ts"], 20))
    return [(s, s + 20 * SEC, len(rows)) for s, rows in groups.items()]


def expect_regular_join(w: Data) -> Rows:
    return [
        (b["item"], b["price"], i["cat"], i["ts"])
        for b in w.bids
        for i in w.items
        if b["item"] is not None and b["item"] == i["id"] and b["price"] is not None and b["price"] > 95
    ]


def expect_window_join(w: Data) -> Rows:
    left = _counts_per_item_window(w)
    right = {k: max(r["cat"] for r in rows) for k, rows in _group(w.items, lambda i: (i["id"], window_of(i["ts"], 10))).items()}
    return [(item, s, c, right[(item, s)]) for (item, s), c in left.items() if item is not None and (item, s) in right]


def _window_pairs(w: Data, size_s: int) -> list[tuple[Row, Row, dt.datetime]]:
    return [
        (b, i, window_of(b["ts"], size_s))
        for b in w.bids
        for i in w.items
        if b["item"] is not None and b["item"] == i["id"] and window_of(b["ts"], size_s) == window_of(i["ts"], size_s)
    ]


def expect_window_join_tvf(w: Data) -> Rows:
    return [(b["item"], b["price"], i["cat"], s) for b, i, s in _window_pairs(w, 15)]


def expect_window_join_tvf_rowtimes(w: Data) -> Rows:
    return [(b["item"], b["ts"], i["ts"], i["cat"]) for b, i, _ in _window_pairs(w, 15)]


def _ranked(rows: list[Row], key: Callable[[Row], Any], n: int) -> list[tuple[int, Row]]:
    """The first n rows by ``key`` (ascending), numbered from 1."""
    return list(enumerate(sorted(rows, key=key)[:n], start=1))


def _desc_nulls_last(v: Any) -> tuple[bool, Any]:
    return (v is None, -v if v is not None else 0)


def _asc_nulls_first(v: Any) -> tuple[bool, Any]:
    return (v is not None, v if v is not None else 0)


def expect_window_topn(w: Data) -> Rows:
    out = []
    for s, rows in _group(w.bids, lambda b: window_of(b["ts"], 10)).items():
        for rn, r in _ranked(rows, lambda r: (_desc_nulls_last(r["price"]), r["ts"]), 3):
            out.append((r["item"], r["price"], r["ts"], s, s + 10 * SEC, rn))
    return out


def expect_window_topn_per_item(w: Data) -> Rows:
    out = []
    for (item, s), rows in _group(w.bids, lambda b: (b["item"], window_of(b["ts"], 30))).items():
        for rn, r in _ranked(rows, lambda r: (_asc_nulls_first(r["price"]), -r["ts"].timestamp()), 2):
            out.append((item, r["bidder"], r["price"], s, s + 30 * SEC, rn))
    return out


def expect_window_topn_after_agg(w: Data) -> Rows:
    per_window: dict[dt.datetime, list[tuple[str, int]]] = defaultdict(list)
    for (item, s), c in _counts_per_item_window(w).items():
        if item is not None:
            per_window[s].append((item, c))
    out = []
    for s, counts in per_window.items():
        for rn, (item, c) in enumerate(sorted(counts, key=lambda ic: (-ic[1], ic[0]))[:2], start=1):
            out.append((item, s, s + 10 * SEC, c, rn))
    return out


def expect_window_dedup(w: Data) -> Rows:
    out = []
    for (item, s), rows in _group(w.bids, lambda b: (b["item"], window_of(b["ts"], 10))).items():
        first = min(rows, key=lambda r: r["ts"])
        out.append((item, first["ts"], first["price"], s))
    return out


def expect_union_all_windows(w: Data) -> Rows:
    bids = _group(w.bids, lambda b: window_of(b["ts"], 10))
    items = _group(w.items, lambda i: window_of(i["ts"], 10))
    return [(s, len(rows)) for s, rows in bids.items()] + [(s, len(rows)) for s, rows in items.items()]
