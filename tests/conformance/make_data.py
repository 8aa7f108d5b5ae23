"""Writes the conformance suite's input (tests/conformance/data/), once; the files are committed
and both Flink (make_expected.py) and sqlengine (test_conformance.py) read them.

Three tables, each as a few JSON-lines files in arrival order: each row's time is up to 2 s off
its place, so rows arrive up to 4 s out of order (the watermark delay is 5 s, so no row is late
in either engine):
- bids: who bid how much on which auction, on which channel (NULL prices and channels among them);
- auctions: each auction's seller, category and reserve;
- persons: people announced again and again with a new city (keep-last gives an updating table);
- fees: each channel's fee and minimum price, changed now and then: the versions of a temporal
  join (a channel's versions come in time order, 5.5 s apart, so none is out of order within its
  key; "mail" is a channel no bid has).

    python tests/conformance/make_data.py
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
BASE = dt.datetime(2024, 1, 1)
FILES = 4  # files per table (sqlengine reads one per micro-batch)


def _ts(seconds: float) -> str:
    return (BASE + dt.timedelta(milliseconds=round(seconds * 1000))).isoformat(sep=" ", timespec="milliseconds")


def _disordered(rnd: random.Random, n: int, step: float) -> list[float]:
    """n distinct times about ``step`` apart, each up to 2 s off its place."""
    seen: set[float] = set()
    out = []
    for i in range(n):
        t = round(i * step + 2 + rnd.uniform(-2, 2), 3)
        while t in seen:
            t = round(t + 0.001, 3)
        seen.add(t)
        out.append(t)
    return out


def bids(rnd: random.Random) -> list[dict]:
    rows = []
    for i, t in enumerate(_disordered(rnd, 320, 0.4)):
        rows.append({
            "ts": _ts(t),
            "auction": rnd.randint(1, 24),
            "bidder": rnd.randint(1, 15),
            "price": None if i % 31 == 7 else rnd.randint(1, 200),
            "channel": None if i % 23 == 4 else rnd.choice(["app", "web", "web", "partner"]),
        })
    return rows


def auctions(rnd: random.Random) -> list[dict]:
    # auctions 1..20 (bids also name 21..24, which no auction announces); 20 is announced twice
    rows = []
    ids = list(range(1, 21)) + [20]
    for i, t in enumerate(_disordered(rnd, len(ids), 6.0)):
        rows.append({
            "ts": _ts(t),
            "id": ids[i],
            "seller": rnd.randint(1, 6),
            "category": None if ids[i] == 13 else rnd.randint(1, 4),
            "reserve": rnd.randint(50, 150),
        })
    return rows


def persons(rnd: random.Random) -> list[dict]:
    rows = []
    for t in _disordered(rnd, 80, 1.6):
        rows.append({
            "ts": _ts(t),
            "id": rnd.randint(1, 15),
            "name": None,
            "city": rnd.choice(["Oslo", "Lima", "Pune", "Kyiv", "Oslo"]),
        })
    for r in rows:
        r["name"] = f"p{r['id']}"
    return rows


def fees(rnd: random.Random) -> list[dict]:
    rows = []
    for t in _disordered(rnd, 24, 5.5):
        rows.append({
            "ts": _ts(t),
            "channel": rnd.choice(["app", "web", "partner", "mail"]),
            "fee": rnd.randint(1, 9),
            "min_price": rnd.choice([0, 50, 100]),
        })
    return rows


def taps(rnd: random.Random) -> list[dict]:
    """Clicks in epoch milliseconds across both of Los Angeles' daylight saving time changes in
    2021 (the spring's missing hour on 14 March, the autumn's repeated hour on 7 November), a
    few minutes apart with pauses longer than an hour; user "d" clicks only at 01:20 in the first
    of the repeated hours and at 01:10 in the second (wall times), 50 minutes apart in time: one
    wall hour and one 40-minute session on the wall clock, two of each on instants."""
    rows = []
    for start in (dt.datetime(2021, 3, 14, 4), dt.datetime(2021, 11, 7, 4)):  # 20:00 or 21:00 the evening before there
        t = (start - dt.datetime(1970, 1, 1)).total_seconds()
        end = t + 12 * 3600
        while t < end:
            rows.append({"ms": round((t + rnd.uniform(-2, 2)) * 1000), "who": rnd.choice("abc"), "clicks": rnd.randint(1, 9)})
            t += rnd.choice([75 * 60, 90 * 60]) if rnd.random() < 0.04 else rnd.uniform(120, 600)
    for at in (dt.datetime(2021, 11, 7, 8, 20), dt.datetime(2021, 11, 7, 9, 10)):  # UTC: 01:20 PDT, 01:10 PST
        ms = int((at - dt.datetime(1970, 1, 1)).total_seconds() * 1000)
        rows.append({"ms": ms, "who": "d", "clicks": 5})
    return sorted(rows, key=lambda r: r["ms"])


def write(name: str, rows: list[dict]) -> None:
    directory = DATA / name
    directory.mkdir(parents=True, exist_ok=True)
    size = -(-len(rows) // FILES)
    for i in range(FILES):
        with open(directory / f"part-{i}.json", "w") as fh:
            for r in rows[i * size:(i + 1) * size]:
                fh.write(json.dumps(r) + "\n")


def main() -> None:
    rnd = random.Random(9)
    # (tables are made in this order from one generator: a new one goes last, the others stay as they were)
    for name, make in (("bids", bids), ("auctions", auctions), ("persons", persons), ("fees", fees), ("taps", taps)):
        write(name, make(rnd))


if __name__ == "__main__":
    main()
