"""State size estimates: a formula always; entries and bytes when statistics give the input rate
or the key domain.

An estimate counts what the operator keeps, entry by entry, as Spark's state store does: a group
aggregation one accumulator per key, a window aggregation one accumulator per key and open window,
a deduplication one entry per key, a join side its rows. An entry costs its key and its value as
Spark lays them out (UnsafeRow: a null bit per field, an 8-byte slot per field, variable-length
values after them in 8-byte words) plus what the state store spends per entry on top
(``row_bytes.STORE_OVERHEAD``, measured per provider by bench/state_bytes.py).

Statistics come from table options (``'stats.rows-per-second'``, ``'stats.distinct.<col>'``,
``'stats.avg-length.<col>'``), from generator options (datagen ``rows-per-second`` and key ranges,
nexmark ``first-event.rate``), or from the lint configuration. Every figure states its assumptions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from catalog import TableDef
from catalog.activity import KeyActivity
from catalog.connectors import spec_of
from planner.analysis.estimate_figures import Estimate, human_bytes, plateau
from planner.analysis.key_spans import activity_note, distinct_within, expected_distinct
from planner.analysis.lineage import Lineage
from planner.analysis.physical import DEFAULT_BUCKETS
from planner.analysis.row_bytes import (
    BUCKET_OVERHEAD,
    DEFAULT_STRING,
    JOIN_SIDE_STORES,
    JVM_ENTRY_OVERHEAD,
    JVM_ROW_COPIES,
    SESSION_INDEX_OVERHEAD,
    STORE_FIXED,
    STORE_OVERHEAD,
    default_partitions,
    jvm_aggregate_value,
    jvm_ranked_value,
    jvm_window_value,
    null_bits,
    type_bytes,
)
from planner.analysis.state import Grouping, Growth, ReleaseKind, StateInfo, StatePart, StoredKind
from planner.durations import format_duration
from planner.logical.operators import GroupAggregate, Node, Scan, TopN, WindowAggregate
from planner.logical.specs import AggFunc

DAY = 86_400
WINDOW_BOUNDS = ("window_start", "window_end", "window_time")
ROW_KINDS = frozenset({StoredKind.ROWS, StoredKind.WAITING_ROWS, StoredKind.OVER_ROWS, StoredKind.OVER_RANGE,
                       StoredKind.WINDOW_RANKED, StoredKind.PARTITION_ROWS, StoredKind.PARTIAL_MATCHES})
# a changelog operator keeping these counts partitions, not rows (the entries of
# sqlengine.changelog.over and .match_recognize)
PARTITIONED_ROWS = frozenset({StoredKind.OVER_ROWS, StoredKind.OVER_RANGE, StoredKind.PARTIAL_MATCHES})
# GroupAgg.java's accumulator rows: a count; a sum (long, double, exact as a string) and its count;
# the extreme (a value of the argument's type: counted as 16 B)
_JVM_ACCUMULATOR = {AggFunc.COUNT: 16, AggFunc.SUM: 8 + 32, AggFunc.AVG: 8 + 32}
# the event time a micro-batch of a live stream covers: batches run back to back, about a second each
LIVE_BATCH_MS = 1000


NEW_KEY_PER_ROW = ("each row of a window may bring a new key (an upper bound; declare 'stats.distinct.<column>', "
                   "or 'stats.active.<column>' for ids that come and go)")


def _domain_note(domain: int) -> str:
    return f"{domain:,} distinct key{'' if domain == 1 else 's'} at most"


def _held(retention_ms: int, batch_ms: int) -> str:
    return f"{format_duration(retention_ms)} + {format_duration(batch_ms)} batch"


def _share(declared: str | None, value: str) -> float | None:
    """A value's share of the rows in 'stats.values.<column>' = 'v1: share, v2: share, ...'
    (None: not declared, or not read as such)."""
    if not declared:
        return None
    shares: dict[str, float] = {}
    for item in declared.split(","):
        key, _, share = item.partition(":")
        try:
            shares[key.strip().strip("'")] = float(share)
        except ValueError:
            return None
    return shares.get(value)


# a window Top-N or deduplication: the rows of each window and key, in one list (translate/windows.py)
WINDOW_LISTS = frozenset({StoredKind.WINDOW_RANKED, StoredKind.WINDOW_ROW})
WINDOW_KEY_BYTES = 8 + 8 + 2 * 8  # Spark's window key: a struct of start and end in the key row


@dataclass(frozen=True)
class Flow:
    """The rows per second reaching an operator (None: unknown), the assumptions behind the
    figure, and whether a filter on the way has no statistic for what it keeps (the figure is
    then an upper bound)."""

    rate: float | None
    notes: tuple[str, ...] = ()
    unknown_filter: bool = False


class Estimator:
    def __init__(self, lineage: Lineage, horizon_days: int = 30, provider: str = "hashmap",
                 changelog: frozenset[int] = frozenset(), partitions: int | None = None, buckets: int = DEFAULT_BUCKETS,
                 jvm: frozenset[int] = frozenset()):
        self.lineage = lineage  # it holds the statistics too (Lineage.option)
        self.horizon_days = horizon_days
        self.provider = provider if provider in STORE_OVERHEAD else "hashmap"
        self.changelog = changelog  # node ids of changelog operators: their state is in RocksDB
        self.partitions = partitions or default_partitions()  # one store instance each
        self.buckets = buckets  # a changelog operator's ('sqlengine.changelog.buckets')
        self.jvm = jvm  # node ids of changelog operators on the JVM

    def provider_of(self, node: Node) -> str:
        return "rocksdb" if node.node_id in self.changelog else self.provider

    def rate(self, table: TableDef) -> tuple[float | None, str]:
        """Rows per second a source produces, and where that figure comes from."""
        explicit = self.lineage.option(table, "stats.rows-per-second")
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

    def batch_span(self, node: Node) -> tuple[int, str]:
        """The event time one micro-batch of the sources under ``node`` covers (ms), and why.
        Spark releases state once per batch, with the watermark of the batch before, so state
        released by time lives that much longer than its retention. A file source read
        'source.max-files-per-trigger' files at a time, with 'stats.rows-per-file' declared, covers
        files × rows / rate; one polled every 'source.monitor-interval', that interval; a live
        stream's back-to-back batches, about a second."""
        spans: list[tuple[int, str]] = []
        for scan in self.lineage.scans(node):
            table = scan.source_table
            rate, _ = self.rate(table)
            files, per_file = self.lineage.option(table, "source.max-files-per-trigger"), self.lineage.option(table, "stats.rows-per-file")
            if rate and files and per_file and files.isdigit() and per_file.isdigit():
                ms = round(int(files) * int(per_file) / rate * 1000)
                spans.append((ms, f"a micro-batch reads {files} file{'' if files == '1' else 's'} of {int(per_file):,} rows of "
                                  f"`{table.name}`: {format_duration(ms)} of event time, state released once per batch"))
                continue
            spec = spec_of(table)
            poll = spec.poll_seconds(table) if spec is not None else None
            if poll:
                ms = round(poll * 1000)
                spans.append((ms, f"a micro-batch every {format_duration(ms)} ('source.monitor-interval' of `{table.name}`), "
                                  "state released once per batch"))
        if not spans:
            return LIVE_BATCH_MS, "a micro-batch covers about 1 s of event time (a live stream's batches), state released once per batch"
        return max(spans)

    def flow(self, node: Node) -> Flow:
        """Rows per second reaching the output of ``node``, with the assumptions made."""
        from planner.logical.joins import Join
        from planner.logical.operators import Calc, Union, Values

        if isinstance(node, Scan):
            rate, source = self.rate(node.source_table)
            return Flow(rate, (source,))
        if isinstance(node, Values):
            return Flow(0.0)
        if isinstance(node, Calc):
            below = self.flow(node.input)
            if below.rate is None or node.condition is None:
                return below
            from planner.binder.joins import conjuncts

            rate, why, unknown = below.rate, list(below.notes), below.unknown_filter
            for c in conjuncts(node.condition):
                sel = self._selectivity(node, c)
                if sel is None:
                    unknown = True
                    continue
                rate *= sel[0]
                why.append(sel[1])
            return Flow(rate, tuple(why), unknown)
        if isinstance(node, (Join, Union)):
            parts = [self.flow(c) for c in node.inputs]
            rates = [f.rate for f in parts if f.rate is not None]
            return Flow(sum(rates) if len(rates) == len(parts) else None, tuple(w for f in parts for w in f.notes),
                        any(f.unknown_filter for f in parts))
        if node.inputs:
            return self.flow(node.inputs[0])
        return Flow(None)

    def input_rows(self, node: Node, flow: Flow) -> tuple[float, tuple[str, ...]] | None:
        """At most the rows reaching ``node`` over a whole run, when every source under it ends after
        a number of rows its options fix (datagen 'number-of-rows', nexmark 'events.num'); None
        otherwise, or when something under it may make more rows than it reads (a join, UNNEST or
        a table function, a HOP or CUMULATE window's copies). The filters' shares apply to one source."""
        from planner.logical.joins import Join
        from planner.logical.operators import Correlate, WindowTVF

        if any(isinstance(n, (Join, Correlate, WindowTVF)) for n in node.walk()):
            return None
        scans = self.lineage.scans(node)
        counts = [(spec.rows(s.source_table) if (spec := spec_of(s.source_table)) is not None else None) for s in scans]
        if not scans or any(n is None for n in counts):
            return None
        total = float(sum(n or 0 for n in counts))
        notes = tuple(f"`{s.table.name}` ends after {n:,} rows" for s, n in zip(scans, counts, strict=True))
        rate = self.rate(scans[0].source_table)[0] if len(scans) == 1 else None
        if flow.rate is not None and rate:
            total *= min(1.0, flow.rate / rate)  # the filters' share
        return total, notes

    def _selectivity(self, node: Node, c: exp.Expr) -> tuple[float, str] | None:
        """The share of rows a filter's conjunct ``column = literal`` keeps, where a statistic says:
        'stats.values.<column>' ('0: 0.02, 1: 0.06, 2: 0.92'), or the connector (Nexmark's event mix)."""
        if not (isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Literal)):
            return None
        origin = self.lineage.origin(node.inputs[0], c.this.name)
        if origin.table is None or origin.path is None:
            return None
        value = c.expression.name
        sel = _share(self.lineage.option(origin.table, f"stats.values.{origin.path}"), value)
        if sel is None:
            spec = spec_of(origin.table)
            sel = spec.selectivity(origin.table, origin.path, value) if spec is not None else None
        if sel is None:
            return None
        return sel, f"`{origin.path} = {value}` keeps {sel:.0%} of `{origin.table.name}`"

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
            declared = self.lineage.avg_length(origin.table, origin.path)
            avg = avg if declared is None else declared
        return type_bytes(f.type, avg)

    @staticmethod
    def _window_bound(node: Node, name: str, tagged: bool = True) -> bool:
        """A window's start, end or time: the window's key, not a column (``tagged``: under any
        name, as q5 renames them; only where entries are kept per window)."""
        if name in WINDOW_BOUNDS or not tagged:  # by name alone where entries are not kept per window
            return name in WINDOW_BOUNDS
        f = next((i.field(name) for i in node.inputs if i.field(name) is not None), None) or node.field(name)
        return f is not None and f.window is not None

    def row_bytes(self, node: Node, part: StatePart, provider: str = "hashmap") -> int:
        """One entry: its key row, its value row (the stored columns that are not the key) and
        the store's overhead (a session's: with the index of its key's sessions). A window's
        accumulator is keyed by the window too."""
        windowed = part.grouping in (Grouping.WINDOW_AND_KEY, Grouping.WINDOW, Grouping.KEY_AND_WINDOW)
        key_names = [k for k in part.keys if not self._window_bound(node, k, windowed)]
        value_names = [n for n in part.row_fields if n not in part.keys and not self._window_bound(node, n, windowed)]
        key = null_bits(len(key_names) + windowed) + sum(self._field_bytes(node, n) for n in key_names)
        key += WINDOW_KEY_BYTES if windowed else 0
        value = null_bits(len(value_names)) + sum(self._field_bytes(node, n) for n in value_names) if value_names else 8
        if node.node_id in self.jvm and isinstance(node, GroupAggregate):  # GroupAgg.java's state row
            rows = key + jvm_aggregate_value([self._field_bytes(node, n) for n in (*node.keys, *(a.name for a in node.aggs))],
                                             [_JVM_ACCUMULATOR.get(a.func, 16) for a in node.aggs],
                                             written=part.release.kind == ReleaseKind.TTL)
            return int(JVM_ENTRY_OVERHEAD + JVM_ROW_COPIES * rows) if provider == "hashmap" else rows
        if node.node_id in self.jvm and isinstance(node, WindowAggregate):  # WindowAgg.java's, per key with one window
            group = null_bits(len(node.keys)) + sum(self._field_bytes(node, n) for n in node.keys) if node.keys else 16
            rows = group + jvm_window_value([_JVM_ACCUMULATOR.get(a.func, 16) for a in node.aggs])
            return int(JVM_ENTRY_OVERHEAD + JVM_ROW_COPIES * rows) if provider == "hashmap" else rows
        if node.node_id in self.jvm and isinstance(node, TopN) and part.stored.kind == StoredKind.TOP_ROWS and part.rows_per_key:
            # TopN.java keeps one state row per partition holding its top N rows (its input's
            # fields); the estimate counts N rows a key, so a row's bytes are an Nth of that entry
            n = part.rows_per_key
            kept = null_bits(len(node.input.fields)) + sum(self._field_bytes(node.input, f) for f in node.input.field_names())
            rows = (key if part.keys else 16) + jvm_ranked_value([kept] * n)
            return int((JVM_ENTRY_OVERHEAD + JVM_ROW_COPIES * rows) / n) if provider == "hashmap" else rows // n
        overhead = STORE_OVERHEAD.get(provider, STORE_OVERHEAD["hashmap"])
        if part.grouping == Grouping.SESSION_AND_KEY:
            overhead += SESSION_INDEX_OVERHEAD.get(provider, 0)
        return key + value + overhead

    def part(self, info: StateInfo, part: StatePart) -> Estimate:
        node = info.node
        feeding = node.inputs[part.input_index] if len(node.inputs) > part.input_index else node
        flow = self.flow(feeding)
        estimate = self._part(info, part, feeding, flow)
        if node.node_id in self.changelog and part is info.parts[0] and estimate.plateau_entries and estimate.plateau_bytes:
            # the operator's buckets holding its entries, once per operator
            buckets = expected_distinct(self.buckets, estimate.plateau_entries) * BUCKET_OVERHEAD
            estimate = replace(estimate, plateau_bytes=estimate.plateau_bytes + buckets)
        fixed = STORE_FIXED.get(self.provider_of(node), 0) * self.partitions
        if fixed and estimate.plateau_bytes is not None:
            # each partition's store instance costs as much before its first entry
            from planner.logical.joins import Join

            stores = JOIN_SIDE_STORES if isinstance(node, Join) else 1
            each = f"{stores} stores" if stores > 1 else "a store"
            estimate = replace(estimate, plateau_bytes=estimate.plateau_bytes + fixed * stores, assumptions=(
                *estimate.assumptions, f"{self.partitions} shuffle partitions, each with {each} costing "
                f"{human_bytes(fixed / self.partitions)} before the first entry"))
        if flow.unknown_filter and estimate.plateau_bytes is not None and not part.arrives_closed:
            return replace(estimate, upper_bound=True)
        return estimate

    def _part(self, info: StateInfo, part: StatePart, feeding: Node, flow: Flow) -> Estimate:
        node = info.node
        rate = flow.rate
        assumptions = list(dict.fromkeys(flow.notes))
        if flow.unknown_filter:
            assumptions.append("a filter with no selectivity statistic keeps every row (an upper bound)")
        src = "+".join(self.lineage.tables(feeding)) or "input"
        row = self.row_bytes(node, part, self.provider_of(node))
        per_key = part.rows_per_key or 1
        times = f" × {per_key}" if per_key != 1 else ""  # rows per key, when a key keeps several
        if part.growth == Growth.NONE:
            if part.arrives_closed:  # whatever the rate and filters, nothing stays
                return Estimate("0 entries between micro-batches (a window's rows arrive as it closes and leave with it)",
                                rate, row, plateau_entries=0, plateau_bytes=0)
            if part.released_by is not None:
                formula = f"rows/s({src}) × (time until the watermark passes `{part.released_by}`) × {row} B"
                return Estimate(formula, rate, row, assumptions=tuple(assumptions))
            keys = ", ".join(part.key_labels or part.keys)
            keyed = node.inputs[0] if node.inputs else node
            domain = self.lineage.key_domain(keyed, part.keys) if part.keys else 1
            # keys that come and go: how many arrive within a span (a window, a TTL, a gap)
            acts = self.lineage.key_activity(keyed, part.keys) if domain is None and part.keys else None
            if domain is not None and part.keys:
                assumptions.append(_domain_note(domain))
            elif acts is not None:
                assumptions.append(activity_note(acts))
            batch_ms = 0
            if part.retention_ms:  # released by time: one micro-batch later
                batch_ms, batch_note = self.batch_span(feeding)
                assumptions.append(batch_note)
            window = getattr(node, "window", None)
            if window is not None and window.size_ms and part.retention_ms:
                if part.stored.kind == StoredKind.WINDOW_ACCUMULATOR:
                    return self._windows(part, window.size_ms, batch_ms, rate, domain, acts, row, keys, tuple(assumptions))
                if part.stored.kind in WINDOW_LISTS:
                    return self._window_lists(node, part, window.size_ms, batch_ms, rate, tuple(assumptions))
            if part.retention_ms is None:
                formula = f"distinct({keys}){times} × {row} B" if part.keys else f"{per_key} × {row} B"
                if domain is None:
                    return Estimate(formula, rate, row, assumptions=tuple(assumptions))
                return self._plateau(formula, rate, row, domain * per_key, assumptions)
            seconds = (part.retention_ms + batch_ms) / 1000
            formula = f"rows/s({src}) × ({_held(part.retention_ms, batch_ms)}){times} × {row} B"
            if acts is not None and part.stored.kind not in ROW_KINDS:
                formula = f"distinct({keys}) within ({_held(part.retention_ms, batch_ms)}){times} × {row} B"
            if rate is None:
                return Estimate(formula, None, row, assumptions=tuple(assumptions))
            # one entry per key (a TTL'd group, a session, a window's kept row) is capped by the key
            # domain; a part keeping rows (a join side, rows waiting) keeps as many as arrive
            if part.stored.kind in ROW_KINDS:
                kept = rate * seconds
            elif domain is not None:
                kept = expected_distinct(domain, rate * seconds)
            else:
                kept = distinct_within(acts, rate * seconds, seconds) if acts is not None else rate * seconds
            if node.node_id in self.changelog and part.stored.kind in PARTITIONED_ROWS and part.keys:
                partitions = distinct_within(acts, kept, seconds) if acts is not None else None
                return self._partitions(formula, rate, row, kept * per_key, domain, partitions, keys, assumptions)
            # without a domain or an activity, every row a new key
            upper = domain is None and acts is None and bool(part.keys) and part.stored.kind not in ROW_KINDS
            return self._plateau(formula, rate, row, kept * per_key, assumptions, upper)
        # unbounded: entries accumulate with time, or with the input until a bounded one ends
        ended = self.input_rows(feeding, flow)
        if ended is not None:
            rows, notes = ended  # no more entries than rows arrived; rows kept: each one
            return self._plateau(f"rows({src}) × {row} B", rate, row, rows, [*assumptions, *notes],
                                 upper=part.stored.kind not in ROW_KINDS)
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

    def _windows(self, part: StatePart, size_ms: int, batch_ms: int, rate: float | None, domain: int | None,
                 acts: tuple[KeyActivity, ...] | None, row: int, keys: str, assumptions: tuple[str, ...]) -> Estimate:
        """A window aggregation keeps one accumulator per key and open window. A window is open
        from its first row until the watermark passes its end, and Spark drops it in the next
        micro-batch: on average (size + delay + one batch) / slide windows at a time, each with
        the keys that came in its span."""
        slide_ms = size_ms / (part.rows_per_key or 1)
        retention = part.retention_ms or size_ms
        open_windows = (retention + batch_ms) / slide_ms
        formula = (
            f"{'distinct(' + keys + ') per window' if part.keys else '1'} × "
            f"({_held(retention, batch_ms)}) / {format_duration(round(slide_ms))} open windows × {row} B"
        )
        in_window = rate * size_ms / 1000 if rate is not None else None
        if not part.keys:
            per_window: float | None = 1.0
        elif in_window is None:
            per_window = float(domain) if domain is not None else None
        elif domain is not None:
            per_window = expected_distinct(domain, in_window)
        else:
            per_window = distinct_within(acts, in_window, size_ms / 1000) if acts is not None else in_window
        if per_window is None:
            return Estimate(formula, rate, row, assumptions=assumptions)
        notes = assumptions + (f"{open_windows:.2g} windows open on average",)
        upper = domain is None and acts is None and bool(part.keys)
        if upper:
            notes += (NEW_KEY_PER_ROW,)
        return self._plateau(formula, rate, row, per_window * open_windows, list(notes), upper)

    def _window_lists(self, node: Node, part: StatePart, size_ms: int, batch_ms: int, rate: float | None,
                      assumptions: tuple[str, ...]) -> Estimate:
        """A window Top-N or deduplication on Spark keeps one entry per open window and partition
        key, holding the list of every row of it until the window ends (the first N, or the first
        or last, are picked then): entries as a window aggregation's, bytes those of every row in
        the open windows."""
        held = _held(part.retention_ms or size_ms, batch_ms)
        span_ms = (part.retention_ms or size_ms) + batch_ms  # how long a row is kept
        open_windows = span_ms / size_ms
        provider = self.provider_of(node)
        key_names = [k for k in part.keys if not self._window_bound(node, k)]
        entry = null_bits(len(key_names) + 1) + WINDOW_KEY_BYTES + sum(self._field_bytes(node, n) for n in key_names)
        entry += STORE_OVERHEAD.get(provider, STORE_OVERHEAD["hashmap"]) + 16  # the list's row: null bits, offset
        values = [n for n in part.row_fields if not self._window_bound(node, n)]
        element = 8 + null_bits(len(values)) + sum(self._field_bytes(node, n) for n in values)  # an offset and a row
        formula = (
            f"{'distinct(' + ', '.join(key_names) + ') per window' if key_names else '1'} × ({held}) / "
            f"{format_duration(size_ms)} open windows × {entry} B + rows/s × ({held}) × {element} B"
        )
        if rate is None:
            return Estimate(formula, None, entry, assumptions=assumptions)
        in_window = rate * size_ms / 1000
        domain: int | None = None
        acts: tuple[KeyActivity, ...] | None = None
        if not key_names:
            per_window = 1.0
        else:
            domain = self.lineage.key_domain(node.inputs[0], tuple(key_names)) if node.inputs else None
            if domain is not None:
                per_window = expected_distinct(domain, in_window)
            else:
                acts = self.lineage.key_activity(node.inputs[0], tuple(key_names)) if node.inputs else None
                per_window = distinct_within(acts, in_window, size_ms / 1000) if acts is not None else in_window
        entries = per_window * open_windows
        notes = assumptions + (f"{open_windows:.2g} windows open on average, each keeping all its rows",)
        upper = bool(key_names) and domain is None and acts is None
        if key_names and domain is not None:
            notes += (_domain_note(domain),)
        elif acts is not None:
            notes += (activity_note(acts),)
        elif upper:
            notes += (NEW_KEY_PER_ROW,)
        total = entries * entry + rate * span_ms / 1000 * element
        return Estimate(formula, rate, entry, plateau_entries=entries, plateau_bytes=total, upper_bound=upper,
                        assumptions=notes)

    @staticmethod
    def _partitions(formula: str, rate: float | None, row: int, rows: float, domain: int | None, among: float | None,
                    keys: str, assumptions: list[str]) -> Estimate:
        """A changelog OVER or MATCH_RECOGNIZE operator counts its state in partitions (its
        entries, as the job's progress reports them), and holds the rows of each: entries are the
        partitions among the rows held (at most: a MATCH_RECOGNIZE partition whose rows began no
        partial match keeps none), bytes those rows."""
        partitions = expected_distinct(domain, rows) if domain is not None else among if among is not None else rows
        notes = [*assumptions, f"entries are the partitions ({keys}) among the rows held"]
        upper = domain is None and among is None
        if upper:
            notes.append("each row may bring a new partition (an upper bound; declare 'stats.distinct.<column>', "
                         "or 'stats.active.<column>' for ids that come and go)")
        return Estimate(f"{formula}; entries: distinct({keys}) among them", rate, row, plateau_entries=partitions,
                        plateau_bytes=rows * row, upper_bound=upper, assumptions=tuple(notes))

    @staticmethod
    def _plateau(formula: str, rate: float | None, row: int, entries: float, assumptions: list[str] | tuple[str, ...],
                 upper: bool = False) -> Estimate:
        return Estimate(formula, rate, row, plateau_entries=entries, plateau_bytes=entries * row, upper_bound=upper,
                        assumptions=tuple(assumptions))

    def total(self, estimates: list[Estimate]) -> Estimate | None:
        if not estimates:
            return None
        plateaus = [e.plateau_bytes for e in estimates if e.plateau_bytes is not None]
        growing = [e for e in estimates if e.growth_per_day is not None]
        unknown = [e for e in estimates if e.plateau_bytes is None and e.growth_per_day is None]
        if unknown:
            return Estimate(" + ".join(e.formula for e in estimates), assumptions=("some inputs have no rate statistics",))
        if not growing:
            return plateau(estimates) or Estimate("sum of plateaus", plateau_bytes=sum(plateaus),
                                                  upper_bound=any(e.upper_bound for e in estimates))
        per_day = sum(e.growth_per_day or 0 for e in growing)
        return Estimate(
            "sum",
            bytes_at_horizon=sum(plateaus) + per_day * self.horizon_days,
            growth_per_day=per_day,
            horizon_days=self.horizon_days,
            upper_bound=any(e.upper_bound for e in growing),
        )
