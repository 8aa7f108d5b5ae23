"""State size estimates: a formula always; entries and bytes when statistics give the input rate
or the key domain.

An estimate counts what the operator keeps, entry by entry, as Spark's state store does: a group
aggregation one accumulator per key, a window aggregation one accumulator per key and open window,
a deduplication one entry per key, a join side its rows. An entry costs its key and its value as
Spark lays them out (UnsafeRow: a null bit per field, an 8-byte slot per field, variable-length
values after them in 8-byte words) plus what the state store spends per entry on top
(``STORE_OVERHEAD``, measured per provider by bench/state_bytes.py).

Statistics come from table options (``'stats.rows-per-second'``, ``'stats.distinct.<col>'``,
``'stats.avg-length.<col>'``), from generator options (datagen ``rows-per-second`` and key ranges,
nexmark ``first-event.rate``), or from the lint configuration. Every figure states its assumptions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sqlglot import exp

from catalog import TableDef
from catalog.connectors import spec_of
from planner.analysis.lineage import Lineage
from planner.analysis.state import Grouping, Growth, StateInfo, StatePart, StoredKind
from planner.durations import format_duration
from planner.logical import typing as T
from planner.logical.operators import Node

DEFAULT_STRING = 32
DAY = 86_400
# bytes a state store spends per entry besides the entry's key and value rows (bench/state_bytes.py):
# the HDFS-backed store ('hashmap') holds each entry as JVM objects in a map, in the last two
# versions; RocksDB ('rocksdb') reports its memory (memtables, block cache), not its entries
STORE_OVERHEAD = {"hashmap": 200, "rocksdb": 0}
PROVIDERS = tuple(STORE_OVERHEAD)
WINDOW_BOUNDS = ("window_start", "window_end", "window_time")
ROW_KINDS = frozenset({StoredKind.ROWS, StoredKind.WAITING_ROWS, StoredKind.OVER_ROWS, StoredKind.OVER_RANGE,
                       StoredKind.WINDOW_RANKED, StoredKind.PARTITION_ROWS, StoredKind.PARTIAL_MATCHES})
WINDOW_KEY_BYTES = 8 + 8 + 2 * 8  # Spark's window key: a struct of start and end in the key row


def plateau(estimates: tuple[Estimate, ...] | list[Estimate]) -> tuple[float, float] | None:
    """Entries and bytes of an operator whose every part plateaus with known entries; else None."""
    if not estimates or any(e.plateau_entries is None or e.plateau_bytes is None for e in estimates):
        return None
    return sum(e.plateau_entries or 0 for e in estimates), sum(e.plateau_bytes or 0 for e in estimates)


def expected_distinct(domain: int, rows: float) -> float:
    """Distinct keys among ``rows`` drawn uniformly from ``domain`` keys."""
    if domain <= 0:
        return 0.0
    if domain == 1:
        return 1.0 if rows > 0 else 0.0
    return domain * -math.expm1(rows * math.log1p(-1 / domain))


def human_count(n: float) -> str:
    return f"{n:,.0f}" if n < 10_000 else f"{n / 1000:,.0f}k" if n < 10_000_000 else f"{n / 1e6:,.0f}M"


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} PB"


def type_bytes(t: exp.DataType, avg_len: int = DEFAULT_STRING) -> int:
    """The bytes a value of ``t`` takes in an UnsafeRow: its 8-byte slot and, for variable-length
    values, the data after the slots in 8-byte words."""
    D = exp.DType
    if T.is_type(t, D.DECIMAL):
        precision, _ = T.decimal_ps(t)
        return 8 if precision <= 18 else 8 + 16  # above 18 digits: 16 bytes after the slots
    if T.is_type(t, D.STRUCT):
        return 8 + unsafe_row_bytes([m.args.get("kind") or T.UNKNOWN for m in t.expressions])
    if T.is_type(t, D.ARRAY, D.MAP, D.LIST):
        return 8 + 64
    if T.is_type(t, D.BOOLEAN, D.TINYINT, D.SMALLINT, D.INT, D.FLOAT, D.DATE, D.BIGINT, D.DOUBLE, *T.TIMESTAMPS):
        return 8
    return 8 + _words(avg_len)  # strings, bytes, unknown: the slot holds offset and length


def unsafe_row_bytes(types: list[exp.DataType], avg_lengths: list[int] | None = None) -> int:
    """An UnsafeRow of these field types: the null bits, then the fields."""
    lengths = avg_lengths or [DEFAULT_STRING] * len(types)
    return null_bits(len(types)) + sum(type_bytes(t, n) for t, n in zip(types, lengths, strict=True))


def null_bits(fields: int) -> int:
    """An UnsafeRow's null bits: 8 bytes per 64 fields."""
    return 8 * -(-fields // 64)


def _words(n: int) -> int:
    return -(-n // 8) * 8


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
    upper_bound: bool = False  # keys assumed new on every row (no distinct-count statistic)
    assumptions: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        if self.plateau_bytes is not None:
            rows = f"{human_count(self.plateau_entries)} entries, " if self.plateau_entries is not None else ""
            return f"plateaus at ≈ {rows}{human_bytes(self.plateau_bytes)}"
        if self.bytes_at_horizon is not None:
            up = "up to " if self.upper_bound else "≈ "
            return (
                f"{up}{human_bytes(self.bytes_at_horizon)} after {self.horizon_days} days, "
                f"growing ~{human_bytes(self.growth_per_day or 0)}/day"
            )
        return self.formula


class Estimator:
    def __init__(self, lineage: Lineage, stats: dict[str, dict[str, str]] | None = None, horizon_days: int = 30,
                 provider: str = "hashmap", changelog: frozenset[int] = frozenset()):
        self.lineage = lineage
        self.stats = stats or {}
        self.horizon_days = horizon_days
        self.provider = provider if provider in STORE_OVERHEAD else "hashmap"
        self.changelog = changelog  # node ids of changelog operators: their state is in RocksDB

    def provider_of(self, node: Node) -> str:
        return "rocksdb" if node.node_id in self.changelog else self.provider

    def _option(self, table: TableDef, key: str) -> str | None:
        return self.stats.get(table.name, {}).get(key) or table.options.get(key)

    def rate(self, table: TableDef) -> tuple[float | None, str]:
        """Rows per second a source produces, and where that figure comes from."""
        explicit = self._option(table, "stats.rows-per-second")
        if explicit:
            try:
                return float(explicit), f"'stats.rows-per-second' = {explicit} for `{table.name}`"
            except ValueError:
                return None, f"'stats.rows-per-second' = {explicit} for `{table.name}` is not a number"
        spec = spec_of(table)
        rate = spec.rate(table) if spec is not None else None
        if rate is None:
            return None, f"no rate for `{table.name}` (set 'stats.rows-per-second')"
        return rate.rows_per_second, rate.source

    def flow(self, node: Node) -> tuple[float | None, list[str]]:
        """Rows per second reaching the output of ``node``, with the assumptions made."""
        from planner.logical.joins import Join
        from planner.logical.operators import Calc, Scan, Union, Values

        if isinstance(node, Scan):
            rate, source = self.rate(node.source_table)
            return rate, [source]
        if isinstance(node, Values):
            return 0.0, []
        if isinstance(node, Calc):
            rate, why = self.flow(node.input)
            if rate is not None and node.condition is not None:
                from planner.binder.joins import conjuncts

                for c in conjuncts(node.condition):
                    if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Literal):
                        origin = self.lineage.origin(node.input, c.this.name)
                        spec = spec_of(origin.table) if origin.table is not None else None
                        if spec is not None and origin.table is not None and origin.path is not None:
                            sel = spec.selectivity(origin.table, origin.path, c.expression.name)
                            if sel is not None:
                                rate *= sel
                                why = why + [f"`{origin.path} = {c.expression.name}` keeps {sel:.0%} of `{origin.table.name}`"]
            return rate, why
        if isinstance(node, (Join, Union)):
            parts = [self.flow(c) for c in node.inputs]
            notes = [w for _, ws in parts for w in ws]
            rates = [r for r, _ in parts if r is not None]
            return (sum(rates) if len(rates) == len(parts) else None), notes
        if node.inputs:
            return self.flow(node.inputs[0])
        return None, []

    def _field_bytes(self, node: Node, name: str) -> int:
        f = node.field(name)
        if f is None:
            for child in node.inputs:
                f = child.field(name) or f
        if f is None:
            return 16
        avg = DEFAULT_STRING
        origin = self.lineage.origin(node, name) if node.field(name) is not None else None
        if origin is not None and origin.table is not None and origin.path is not None:
            hint = self._option(origin.table, f"stats.avg-length.{origin.path}")
            if hint and hint.isdigit():
                avg = int(hint)
        return type_bytes(f.type, avg)

    def row_bytes(self, node: Node, part: StatePart, provider: str = "hashmap") -> int:
        """One entry: its key row, its value row (the stored columns that are not the key) and
        the store's overhead. A window's accumulator is keyed by the window too."""
        windowed = part.grouping in (Grouping.WINDOW_AND_KEY, Grouping.WINDOW, Grouping.KEY_AND_WINDOW)
        key_names = [k for k in part.keys if k not in WINDOW_BOUNDS]
        value_names = [n for n in part.row_fields if n not in part.keys and n not in WINDOW_BOUNDS]
        key = null_bits(len(key_names) + windowed) + sum(self._field_bytes(node, n) for n in key_names)
        key += WINDOW_KEY_BYTES if windowed else 0
        value = null_bits(len(value_names)) + sum(self._field_bytes(node, n) for n in value_names) if value_names else 8
        return key + value + STORE_OVERHEAD.get(provider, STORE_OVERHEAD["hashmap"])

    def part(self, info: StateInfo, part: StatePart) -> Estimate:
        node = info.node
        feeding = node.inputs[part.input_index] if len(node.inputs) > part.input_index else node
        rate, flow_notes = self.flow(feeding)
        assumptions = list(dict.fromkeys(flow_notes))
        assumptions.append("other filters keep every row (no selectivity statistics)")
        src = "+".join(self.lineage.tables(feeding)) or "input"
        row = self.row_bytes(node, part, self.provider_of(node))
        per_key = part.rows_per_key or 1
        times = f" × {per_key}" if per_key != 1 else ""  # rows per key, when a key keeps several
        if part.growth == Growth.NONE:
            if part.released_by is not None:
                formula = f"rows/s({src}) × (time until the watermark passes `{part.released_by}`) × {row} B"
                return Estimate(formula, rate, row, assumptions=tuple(assumptions))
            keys = ", ".join(part.key_labels or part.keys)
            domain = self.lineage.key_domain(node.inputs[0] if node.inputs else node, part.keys) if part.keys else 1
            if domain is not None and part.keys:
                assumptions.append(f"{domain:,} distinct key{'' if domain == 1 else 's'} at most")
            window = getattr(node, "window", None) if part.stored.kind == StoredKind.WINDOW_ACCUMULATOR else None
            if window is not None and window.size_ms and part.retention_ms:
                return self._windows(part, window.size_ms, rate, domain, row, keys, tuple(assumptions))
            if part.retention_ms is None:
                formula = f"distinct({keys}){times} × {row} B" if part.keys else f"{per_key} × {row} B"
                if domain is None:
                    return Estimate(formula, rate, row, assumptions=tuple(assumptions))
                return self._plateau(formula, rate, row, domain * per_key, assumptions)
            seconds = part.retention_ms / 1000
            formula = f"rows/s({src}) × {format_duration(part.retention_ms)}{times} × {row} B"
            if rate is None:
                return Estimate(formula, None, row, assumptions=tuple(assumptions))
            # one entry per key (a TTL'd group, a session, a window's kept row) is capped by the key
            # domain; a part keeping rows (a join side, rows waiting) keeps as many as arrive
            kept = rate * seconds if domain is None or part.stored.kind in ROW_KINDS else expected_distinct(domain, rate * seconds)
            return self._plateau(formula, rate, row, kept * per_key, assumptions)
        # unbounded: entries accumulate with time
        horizon = self.horizon_days * DAY
        if part.growth == Growth.ROWS:
            formula = f"rows/s({src}) × t × {row} B"
            upper = False
        elif part.growth == Growth.TIME and not part.keys[1:] and part.buckets_per_day:
            # only the time bucket is the key: one entry per bucket
            per_day = part.buckets_per_day * per_key * row
            return Estimate(f"{part.buckets_per_day:g} bucket{'' if part.buckets_per_day == 1 else 's'}/day × {row} B", rate, row,
                            bytes_at_horizon=per_day * self.horizon_days, growth_per_day=per_day,
                            horizon_days=self.horizon_days, assumptions=tuple(assumptions))
        else:
            formula = f"distinct({', '.join(part.key_labels or part.keys) or 'key'}) over time{times} × {row} B"
            upper = True
            assumptions.append("each row may bring a new key (an upper bound; if the key takes a known, finite set of values, declare its size with 'stats.distinct.<column>')")
        if rate is None:
            return Estimate(formula, None, row, upper_bound=upper, assumptions=tuple(assumptions))
        per_day = rate * DAY * per_key * row
        return Estimate(
            formula,
            rate,
            row,
            bytes_at_horizon=per_day * self.horizon_days if horizon else None,
            growth_per_day=per_day,
            horizon_days=self.horizon_days,
            upper_bound=upper,
            assumptions=tuple(assumptions),
        )

    def _windows(self, part: StatePart, size_ms: int, rate: float | None, domain: int | None, row: int, keys: str,
                 assumptions: tuple[str, ...]) -> Estimate:
        """A window aggregation keeps one accumulator per key and open window. A window is open
        from its first row until the watermark passes its end: on average (size + delay) / slide
        windows at a time, each with the keys that came in its span."""
        slide_ms = size_ms / (part.rows_per_key or 1)
        open_windows = (part.retention_ms or size_ms) / slide_ms
        formula = (
            f"{'distinct(' + keys + ') per window' if part.keys else '1'} × "
            f"{format_duration(part.retention_ms or size_ms)} / {format_duration(round(slide_ms))} open windows × {row} B"
        )
        in_window = rate * size_ms / 1000 if rate is not None else None
        if not part.keys:
            per_window: float | None = 1.0
        elif in_window is None:
            per_window = float(domain) if domain is not None else None
        else:
            per_window = expected_distinct(domain, in_window) if domain is not None else in_window
        if per_window is None:
            return Estimate(formula, rate, row, assumptions=assumptions)
        notes = assumptions + (f"{open_windows:.2g} windows open on average",)
        if domain is None and part.keys:
            notes += ("each row of a window may bring a new key (an upper bound; declare 'stats.distinct.<column>')",)
        return self._plateau(formula, rate, row, per_window * open_windows, list(notes))

    @staticmethod
    def _plateau(formula: str, rate: float | None, row: int, entries: float, assumptions: list[str] | tuple[str, ...]) -> Estimate:
        return Estimate(formula, rate, row, plateau_entries=entries, plateau_bytes=entries * row, assumptions=tuple(assumptions))

    def total(self, estimates: list[Estimate]) -> Estimate | None:
        if not estimates:
            return None
        plateaus = [e.plateau_bytes for e in estimates if e.plateau_bytes is not None]
        growing = [e for e in estimates if e.growth_per_day is not None]
        unknown = [e for e in estimates if e.plateau_bytes is None and e.growth_per_day is None]
        if unknown:
            return Estimate(" + ".join(e.formula for e in estimates), assumptions=("some inputs have no rate statistics",))
        if not growing:
            both = plateau(estimates)
            return Estimate("sum of plateaus", plateau_entries=both[0] if both else None, plateau_bytes=sum(plateaus))
        per_day = sum(e.growth_per_day or 0 for e in growing)
        return Estimate(
            "sum",
            bytes_at_horizon=sum(plateaus) + per_day * self.horizon_days,
            growth_per_day=per_day,
            horizon_days=self.horizon_days,
            upper_bound=any(e.upper_bound for e in growing),
        )
