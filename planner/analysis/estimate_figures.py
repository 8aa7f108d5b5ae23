"""An estimate of one operator's state (what the estimator works out, ``planner.analysis.estimate``)
and how its figures print: entries and bytes at a plateau, or bytes after a horizon and growth."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Estimate:
    formula: str
    rows_per_second: float | None = None
    row_bytes: int | None = None  # one entry: key, value and the store's overhead
    plateau_entries: float | None = None  # bounded state, in entries (Spark's numRowsTotal)
    plateau_bytes: float | None = None  # bounded state
    bytes_at_horizon: float | None = None  # unbounded state after the horizon
    growth_per_day: float | None = None
    horizon_days: int = 30
    upper_bound: bool = False  # keys assumed new on every row (no distinct-count statistic): at most this
    assumptions: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        if self.plateau_bytes is not None:
            rows = f"{human_count(self.plateau_entries)} entries, " if self.plateau_entries is not None else ""
            return f"plateaus at {'up to ' if self.upper_bound else '≈ '}{rows}{human_bytes(self.plateau_bytes)}"
        if self.bytes_at_horizon is not None:
            up = "up to " if self.upper_bound else "≈ "
            return (
                f"{up}{human_bytes(self.bytes_at_horizon)} after {self.horizon_days} days, "
                f"growing ~{human_bytes(self.growth_per_day or 0)}/day"
            )
        return self.formula


def plateau(estimates: tuple[Estimate, ...] | list[Estimate]) -> Estimate | None:
    """An operator whose every part plateaus with known entries: its parts summed (an upper bound
    if any part is one); else None."""
    if not estimates or any(e.plateau_entries is None or e.plateau_bytes is None for e in estimates):
        return None
    return Estimate("sum of plateaus", plateau_entries=sum(e.plateau_entries or 0 for e in estimates),
                    plateau_bytes=sum(e.plateau_bytes or 0 for e in estimates), upper_bound=any(e.upper_bound for e in estimates))


def human_count(n: float) -> str:
    return f"{n:,.0f}" if n < 10_000 else f"{n / 1000:,.0f}k" if n < 10_000_000 else f"{n / 1e6:,.0f}M"


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} PB"
