"""State size estimates: a formula always, bytes when statistics give the input rate.

Statistics come from table options (``'stats.rows-per-second'``, ``'stats.distinct.<col>'``,
``'stats.avg-length.<col>'``), from generator options (datagen ``rows-per-second``, nexmark
``first-event.rate``), or from the lint configuration. Every figure states its assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from catalog import TableDef
from catalog.connectors import spec_of
from planner.analysis.lineage import Lineage
from planner.analysis.state import Growth, StateInfo, StatePart
from planner.durations import format_duration
from planner.logical import typing as T
from planner.logical.operators import Node

ROW_OVERHEAD = 48  # bytes per state entry besides the columns: row header, key copy, store index
DEFAULT_STRING = 32
DAY = 86_400


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if abs(n) < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} PB"


def type_bytes(t: exp.DataType, avg_len: int = DEFAULT_STRING) -> int:
    D = exp.DType
    if T.is_type(t, D.BOOLEAN, D.TINYINT):
        return 1
    if T.is_type(t, D.SMALLINT):
        return 2
    if T.is_type(t, D.INT, D.FLOAT, D.DATE):
        return 4
    if T.is_type(t, D.BIGINT, D.DOUBLE, *T.TIMESTAMPS):
        return 8
    if T.is_type(t, D.DECIMAL):
        return 16
    if T.is_type(t, D.STRUCT):
        return sum(type_bytes(m.args.get("kind") or T.UNKNOWN) for m in t.expressions) + 8
    if T.is_type(t, D.ARRAY, D.MAP, D.LIST):
        return 64
    return avg_len + 8  # strings, bytes, unknown: length + offset word


@dataclass(frozen=True)
class Estimate:
    formula: str
    rows_per_second: float | None = None
    row_bytes: int | None = None
    plateau_bytes: float | None = None  # bounded state
    bytes_at_horizon: float | None = None  # unbounded state after the horizon
    growth_per_day: float | None = None
    horizon_days: int = 30
    upper_bound: bool = False  # keys assumed new on every row (no distinct-count statistic)
    assumptions: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        if self.plateau_bytes is not None:
            return f"plateaus at ≈ {human_bytes(self.plateau_bytes)}"
        if self.bytes_at_horizon is not None:
            up = "up to " if self.upper_bound else "≈ "
            return (
                f"{up}{human_bytes(self.bytes_at_horizon)} after {self.horizon_days} days, "
                f"growing ~{human_bytes(self.growth_per_day or 0)}/day"
            )
        return self.formula


class Estimator:
    def __init__(self, lineage: Lineage, stats: dict[str, dict[str, str]] | None = None, horizon_days: int = 30):
        self.lineage = lineage
        self.stats = stats or {}
        self.horizon_days = horizon_days

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

    def row_bytes(self, node: Node, part: StatePart) -> int:
        total = ROW_OVERHEAD
        for name in part.row_fields:
            f = node.field(name)
            if f is None:
                for child in node.inputs:
                    f = child.field(name) or f
            if f is None:
                total += 16
                continue
            avg = DEFAULT_STRING
            origin = self.lineage.origin(node, name) if node.field(name) is not None else None
            if origin is not None and origin.table is not None and origin.path is not None:
                hint = self._option(origin.table, f"stats.avg-length.{origin.path}")
                if hint and hint.isdigit():
                    avg = int(hint)
            total += type_bytes(f.type, avg)
        return total

    def part(self, info: StateInfo, part: StatePart) -> Estimate:
        node = info.node
        feeding = node.inputs[part.input_index] if len(node.inputs) > part.input_index else node
        rate, flow_notes = self.flow(feeding)
        assumptions = list(dict.fromkeys(flow_notes))
        assumptions.append("other filters keep every row (no selectivity statistics)")
        src = "+".join(self.lineage.tables(feeding)) or "input"
        row = self.row_bytes(node, part)
        per_key = part.rows_per_key or 1
        times = f" × {per_key}" if per_key != 1 else ""  # rows per key, when a key keeps several
        if part.growth == Growth.NONE:
            if part.released_by is not None:
                formula = f"rows/s({src}) × (time until the watermark passes `{part.released_by}`) × {row} B"
                return Estimate(formula, rate, row, assumptions=tuple(assumptions))
            if part.retention_ms is None:
                domain = self.lineage.key_domain(node.inputs[0] if node.inputs else node, part.keys) if part.keys else None
                formula = f"distinct({', '.join(part.key_labels or part.keys)}){times} × {row} B" if part.keys else f"{per_key} × {row} B"
                if domain is None and not part.keys:
                    domain = 1
                if domain is None:
                    return Estimate(formula, rate, row, assumptions=tuple(assumptions))
                return Estimate(formula, rate, row, plateau_bytes=domain * per_key * row,
                                assumptions=tuple(assumptions + [f"{domain} distinct key{'' if domain == 1 else 's'} at most"]))
            seconds = part.retention_ms / 1000
            formula = f"rows/s({src}) × {format_duration(part.retention_ms)}{times} × {row} B"
            if rate is None:
                return Estimate(formula, None, row, assumptions=tuple(assumptions))
            return Estimate(formula, rate, row, plateau_bytes=rate * seconds * per_key * row, assumptions=tuple(assumptions))
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

    def total(self, estimates: list[Estimate]) -> Estimate | None:
        if not estimates:
            return None
        plateau = [e.plateau_bytes for e in estimates if e.plateau_bytes is not None]
        growing = [e for e in estimates if e.growth_per_day is not None]
        unknown = [e for e in estimates if e.plateau_bytes is None and e.growth_per_day is None]
        if unknown:
            return Estimate(" + ".join(e.formula for e in estimates), assumptions=("some inputs have no rate statistics",))
        if not growing:
            return Estimate("sum of plateaus", plateau_bytes=sum(plateau))
        per_day = sum(e.growth_per_day or 0 for e in growing)
        return Estimate(
            "sum",
            bytes_at_horizon=sum(plateau) + per_day * self.horizon_days,
            growth_per_day=per_day,
            horizon_days=self.horizon_days,
            upper_bound=any(e.upper_bound for e in growing),
        )
