"""How many distinct keys arrive within a span of event time: from a finite domain, or from a
column's activity (catalog.activity: ids drawn from a sliding set of active ones, some rows on
one hot key). The estimates count a window's keys, a TTL's or a session gap's with it."""

from __future__ import annotations

import itertools
import math

from catalog.activity import KeyActivity


def expected_distinct(domain: float, rows: float) -> float:
    """Distinct keys among ``rows`` drawn uniformly from ``domain`` keys."""
    if domain <= 0 or rows <= 0:
        return 0.0
    if domain <= 1:
        return 1.0
    return domain * -math.expm1(rows * math.log1p(-1 / domain))


def distinct_within(keys: tuple[KeyActivity, ...], rows: float, seconds: float) -> float:
    """Distinct key tuples among ``rows`` arriving within ``seconds``, the columns drawn
    independently. Each column's value is its hot key (a share of the rows) or one of the keys
    in use during the span, so the tuples split into groups by which columns are hot; each group
    draws uniformly from the product of its columns' choices."""
    total = 0.0
    for hot in itertools.product((True, False), repeat=len(keys)):
        share = math.prod(k.hot_share if h else 1 - k.hot_share for k, h in zip(keys, hot, strict=True))
        if share > 0:
            choices = math.prod(k.hot_keys_within(seconds) if h else k.keys_within(seconds) for k, h in zip(keys, hot, strict=True))
            total += expected_distinct(choices, rows * share)
    return total


def activity_note(keys: tuple[KeyActivity, ...]) -> str:
    return "keys come and go: " + "; ".join(map(str, keys))
