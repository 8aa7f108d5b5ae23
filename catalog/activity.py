"""How a key column's values come and go over time, for state estimates of keys seen within a
span (a window, a TTL, a session gap). Ids such as Nexmark's auctions in flight never form a
finite domain, yet within any span rows draw them from a small, sliding set of active ids."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeyActivity:
    """At any time, rows draw the column uniformly from about ``active`` keys, and
    ``new_per_second`` keys enter use each second of event time (as many leave). A share
    ``hot_share`` of the rows takes the one current hot key instead, which moves to another key
    ``hot_moves_per_second`` times a second. ``source`` says where the figures come from. A
    finite domain D is KeyActivity(D)."""

    active: float
    new_per_second: float = 0.0
    hot_share: float = 0.0
    source: str = ""
    hot_moves_per_second: float = 0.0

    def keys_within(self, seconds: float) -> float:
        """The keys rows can draw from during a span: those active at its start and those that
        entered during it."""
        return self.active + self.new_per_second * max(seconds, 0.0)

    def hot_keys_within(self, seconds: float) -> float:
        """The hot keys of a span: the one at its start and those it moved to."""
        return 1.0 + self.hot_moves_per_second * max(seconds, 0.0)

    def __str__(self) -> str:
        if not (self.new_per_second or self.hot_share or self.source):
            return f"{self.active:,.0f} distinct values"
        parts = [f"{self.active:,.0f} keys active at a time"]
        if self.new_per_second:
            parts.append(f"{self.new_per_second:g} new per second")
        if self.hot_share:
            moving = f", which moves {self.hot_moves_per_second:g} times a second" if self.hot_moves_per_second else ""
            parts.append(f"{self.hot_share:.0%} of rows on one hot key{moving}")
        return ", ".join(parts) + (f" ({self.source})" if self.source else "")
