"""Logical operators: a tree of frozen dataclasses; ``str(node)`` prints the plan.

Expressions inside a node are sqlglot trees whose column references are the unqualified names of
the node's input fields (for a join: the left fields followed by the right fields, names made
unique with `$n` suffixes). ``origin`` is the syntax node an operator came from, for positions.

Each node has a ``node_id``, given by the binder once a statement's plans are final
(``planner.logical.ids``): side tables (properties, state, estimates, diagnostics) are keyed by it,
and a subtree the plan uses twice (a view read on both sides of a join) is one node, one id.

What an operator *is* is declared on its class, never worked out by callers from its type:
``stateful``, ``changelog(inputs)`` (the rows it emits, given its inputs' changelogs) and
``waits_on_watermark()`` (whether it holds rows back until event time passes a bound).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from sqlglot import exp

from catalog import TableDef
from catalog.connectors import spec_of
from planner.logical.changelog import INSERT_ONLY, RETRACT, Changelog, Mode
from planner.logical.fields import Field, TimeKind
from planner.logical.match import MatchSpec
from planner.logical.specs import AggCall, AggFunc, OperatorKind, WindowSpec, fmt_ms, sql

UNNUMBERED = -1


Annotate = Callable[["Node"], list[str]]


@dataclass(frozen=True, eq=False)
class Node:
    fields: tuple[Field, ...]
    origin: exp.Expr | None = field(default=None, repr=False, kw_only=True)
    # state TTL from a STATE_TTL hint: (ttl,) for one input, (left, right) for a join
    state_ttl_ms: tuple[int | None, ...] = field(default=(), kw_only=True)
    node_id: int = field(default=UNNUMBERED, kw_only=True)

    stateful: ClassVar[bool] = False
    KIND: ClassVar[OperatorKind]

    @property
    def inputs(self) -> tuple[Node, ...]:
        return ()

    @property
    def kind(self) -> OperatorKind:
        return self.KIND

    @property
    def label(self) -> str:
        """The node's id as EXPLAIN and diagnostics show it: n0, n1, ..."""
        return f"n{self.node_id}"

    def describe(self) -> str:
        return ""

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def state_ttl_hint(self, side: int = 0) -> int | None:
        """The TTL a STATE_TTL hint gives this operator (one join side), or None without one."""
        return self.state_ttl_ms[side] if len(self.state_ttl_ms) > side else None

    def state_ttl(self, session_ttl_ms: int | None, side: int = 0) -> int | None:
        """The state TTL of this operator (of one join side): its STATE_TTL hint, which overrides
        the session's TTL ('0 ms' too: that side's rows never expire), else the session's."""
        hint = self.state_ttl_hint(side)
        return hint if hint is not None else session_ttl_ms

    def state_ttls(self, session_ttl_ms: int | None) -> tuple[int | None, ...]:
        """The state TTL of each input side (one for a single-input operator)."""
        return tuple(self.state_ttl(session_ttl_ms, side) for side in range(max(1, len(self.state_ttl_ms))))

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def walk(self) -> Iterator[Node]:
        """Pre-order: this node, then its inputs (a shared subtree once per use)."""
        yield self
        for child in self.inputs:
            yield from child.walk()

    # -- traits (overridden where an operator differs) ------------------------------------------

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        """The changelog this operator emits, given its inputs' changelogs."""
        return inputs[0] if inputs else INSERT_ONLY

    def waits_on_watermark(self) -> bool:
        """Whether it holds rows back until the watermark passes a bound (a window's end, an
        interval bound, a row's time); group aggregation, keep-first deduplication and regular
        joins emit at once."""
        return False

    # -- printing ------------------------------------------------------------------------------

    def tree_lines(self, annotate: Annotate | None = None, prefix: str = "") -> list[str]:
        head = f"{self.kind}({self.describe()})" if self.describe() else str(self.kind)
        lines = [prefix + head]
        if annotate is not None:
            for note in annotate(self):
                lines.append(prefix + "   " + note)
        kids = self.inputs
        for i, child in enumerate(kids):
            last = i == len(kids) - 1
            sub = child.tree_lines(annotate, "")
            lines.append(prefix + ("└─ " if last else "├─ ") + sub[0])
            pad = prefix + ("   " if last else "│  ")
            lines.extend(pad + s for s in sub[1:])
        return lines

    def __str__(self) -> str:
        return "\n".join(self.tree_lines())


@dataclass(frozen=True, eq=False)
class Unary(Node):
    input: Node = field(kw_only=True)

    @property
    def inputs(self) -> tuple[Node, ...]:
        return (self.input,)


# -- leaves ------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Scan(Node):
    KIND = OperatorKind.SCAN
    table: TableDef = field(kw_only=True)
    alias: str | None = field(default=None, kw_only=True)
    # computed columns, bound to the physical/metadata fields: name -> expression
    computed: tuple[tuple[str, exp.Expr], ...] = field(default=(), kw_only=True)
    watermark_field: str | None = field(default=None, kw_only=True)
    watermark_delay_ms: int | None = field(default=None, kw_only=True)  # None: not a constant delay
    watermark_expr: exp.Expr | None = field(default=None, kw_only=True)
    hints: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)  # OPTIONS(...) hint
    # conjuncts of the filter right above the scan (over its fields), offered to the connector
    # (Flink's SupportsFilterPushDown): a source may produce fewer rows; the filter still runs
    filters: tuple[exp.Expr, ...] = field(default=(), kw_only=True)

    @property
    def watermark_advances(self) -> bool:
        """Does event time move forward here? A watermark whose expression reads no column
        (``WATERMARK FOR ts AS TIMESTAMP '2020-01-01 00:00:00'``) is a constant: it never passes
        a window end, an interval bound or a row's time beyond it."""
        if self.watermark_field is None:
            return False
        return self.watermark_expr is None or self.watermark_expr.find(exp.Column) is not None

    def describe(self) -> str:
        s = f"table=[{self.table.name}], fields=[{', '.join(self.field_names())}]"
        if self.watermark_field:
            s += f", watermark={self.watermark_field} - {fmt_ms(self.watermark_delay_ms)}"
        return s

    @property
    def options(self) -> dict[str, str]:
        return {**self.table.options, **dict(self.hints)}

    @property
    def upsert_source(self) -> bool:
        """Its connector reads a changelog on the primary key (upserts and deletes, as
        upsert-kafka), which the binder puts a ChangelogNormalize over."""
        spec = spec_of(self.table)
        return spec is not None and spec.upsert_source

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return Changelog(Mode.UPSERT, self.table.primary_key) if self.upsert_source else INSERT_ONLY

    @property
    def source_table(self) -> TableDef:
        """The table with the OPTIONS hint applied: what the connector reads."""
        return self.table.with_options(self.options) if self.hints else self.table


@dataclass(frozen=True, eq=False)
class Values(Node):
    KIND = OperatorKind.VALUES
    rows: tuple[tuple[exp.Expr, ...], ...] = field(kw_only=True)

    def describe(self) -> str:
        return f"rows={len(self.rows)}"


# -- stateless ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Calc(Unary):
    """Projection and filter, no state."""

    KIND = OperatorKind.CALC
    projections: tuple[tuple[str, exp.Expr], ...] = field(kw_only=True)
    condition: exp.Expr | None = field(default=None, kw_only=True)

    def describe(self) -> str:
        proj = ", ".join(
            name if isinstance(e, exp.Column) and e.name == name else f"{sql(e)} AS {name}"
            for name, e in self.projections
        )
        s = f"select=[{proj}]"
        if self.condition is not None:
            s += f", where=[{sql(self.condition)}]"
        return s

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        # an upsert stream stays one while its key is projected (under the key's new names)
        c = inputs[0]
        if c.mode != Mode.UPSERT or not c.key:
            return c
        kept = {e.name: n for n, e in self.projections if isinstance(e, exp.Column)}
        if all(k in kept for k in c.key):
            return Changelog(Mode.UPSERT, tuple(kept[k] for k in c.key))
        return RETRACT


@dataclass(frozen=True, eq=False)
class WindowTVF(Unary):
    """A window table function: adds window_start, window_end, window_time to each row."""

    KIND = OperatorKind.WINDOW_TVF
    window: WindowSpec = field(kw_only=True)

    def describe(self) -> str:
        return str(self.window)

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return INSERT_ONLY


@dataclass(frozen=True, eq=False)
class Correlate(Unary):
    """LATERAL TABLE(f(..)) / CROSS JOIN UNNEST(..): rows expanded per input row, no state."""

    KIND = OperatorKind.CORRELATE
    call: exp.Expr = field(kw_only=True)
    outer: bool = field(default=False, kw_only=True)

    def describe(self) -> str:
        return f"{'left ' if self.outer else ''}{sql(self.call)}"

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        # one row of a key becomes several: no longer an upsert on that key
        return RETRACT if inputs[0].mode == Mode.UPSERT else inputs[0]


@dataclass(frozen=True, eq=False)
class Union(Node):
    KIND = OperatorKind.UNION
    children: tuple[Node, ...] = field(kw_only=True)
    all: bool = field(default=True, kw_only=True)

    @property
    def inputs(self) -> tuple[Node, ...]:
        return self.children

    def describe(self) -> str:
        return "all=true" if self.all else "all=false"

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return RETRACT if any(not c.insert_only for c in inputs) else INSERT_ONLY


@dataclass(frozen=True, eq=False)
class Sink(Unary):
    KIND = OperatorKind.SINK
    table: TableDef = field(kw_only=True)
    overwrite: bool = field(default=False, kw_only=True)
    static_partition: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)

    def describe(self) -> str:
        return f"table=[{self.table.name}], fields=[{', '.join(self.field_names())}]"


# -- stateful ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GroupAggregate(Unary):
    stateful = True
    keys: tuple[str, ...] = field(kw_only=True)  # input field names
    aggs: tuple[AggCall, ...] = field(kw_only=True)
    distinct_only: bool = field(default=False, kw_only=True)  # SELECT DISTINCT
    # INTERSECT or EXCEPT [ALL]: the counts of each row value in the left and right inputs
    set_operation: str | None = field(default=None, kw_only=True)

    @property
    def kind(self) -> OperatorKind:
        return OperatorKind.DISTINCT if self.distinct_only else OperatorKind.GROUP_AGGREGATE

    def describe(self) -> str:
        keys = f"groupBy=[{', '.join(self.keys)}]"
        if self.set_operation:
            keys = f"{self.set_operation.lower()}=[{', '.join(self.keys)}]"
        if self.distinct_only:
            return keys
        return f"{keys}, select=[{', '.join(str(a) for a in self.aggs)}]"

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        if self.distinct_only and inputs[0].insert_only:
            return INSERT_ONLY  # a distinct key is emitted once and never changes
        return Changelog(Mode.UPSERT, self.keys)


def window_time_field(node: Node, window: WindowSpec) -> Field | None:
    """The time attribute the window a window operator (``node``) works on is assigned on."""
    # after a window TVF its time column is a plain timestamp: ask the TVF's input
    for n in node.walk():
        if isinstance(n, WindowTVF) and n.window.id == window.id:
            return n.input.field(window.time_field)
    return node.inputs[0].field(window.time_field) if node.inputs else None  # a legacy GROUP BY TUMBLE(proc, ...)


def window_on_proctime(node: Node, window: WindowSpec) -> bool:
    """Whether the window a window operator (``node``) works on is on processing time."""
    f = window_time_field(node, window)
    return f is not None and f.time == TimeKind.PROCTIME


@dataclass(frozen=True, eq=False)
class WindowAggregate(Unary):
    KIND = OperatorKind.WINDOW_AGGREGATE
    stateful = True
    window: WindowSpec = field(kw_only=True)
    keys: tuple[str, ...] = field(kw_only=True)  # non-window group keys (input field names)
    aggs: tuple[AggCall, ...] = field(kw_only=True)
    legacy: bool = field(default=False, kw_only=True)  # GROUP BY TUMBLE(ts, ..) form

    def describe(self) -> str:
        keys = f", groupBy=[{', '.join(self.keys)}]" if self.keys else ""
        return f"window=[{self.window}]{keys}, select=[{', '.join(str(a) for a in self.aggs)}]"

    @property
    def on_proctime(self) -> bool:
        """A processing-time window: closed by the wall clock, not by a watermark."""
        return window_on_proctime(self, self.window)

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return INSERT_ONLY

    def waits_on_watermark(self) -> bool:
        return not self.on_proctime


@dataclass(frozen=True, eq=False)
class Deduplicate(Unary):
    stateful = True
    keys: tuple[str, ...] = field(kw_only=True)
    order_field: str = field(kw_only=True)
    keep_last: bool = field(kw_only=True)
    rank_field: str | None = field(default=None, kw_only=True)  # projected row number, if any
    window: WindowSpec | None = field(default=None, kw_only=True)  # window deduplication

    @property
    def kind(self) -> OperatorKind:
        return OperatorKind.WINDOW_DEDUPLICATE if self.window else OperatorKind.DEDUPLICATE

    def describe(self) -> str:
        keep = "LastRow" if self.keep_last else "FirstRow"
        return f"keep=[{keep}], key=[{', '.join(self.keys)}], order=[{self.order_field}]"

    @property
    def on_proctime(self) -> bool:
        f = self.input.field(self.order_field)
        return f is not None and f.time == TimeKind.PROCTIME

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        if self.window is not None:
            return INSERT_ONLY
        if not self.keep_last and self.on_proctime:
            return INSERT_ONLY  # the first arrival per key never changes
        # keep-last, and keep-first on event time (an earlier row may still arrive): the row
        # kept per key can be replaced, an upsert on the key
        return Changelog(Mode.UPSERT, self.keys)

    def waits_on_watermark(self) -> bool:
        return self.window is not None


@dataclass(frozen=True, eq=False)
class ChangelogNormalize(Unary):
    """Flink's ChangelogNormalize, over an upsert source: the last row of every key, so that an
    upsert becomes +I (a new key) or -U/+U (the old row taken back), a delete (a tombstone: only
    the key is set) becomes -D of the whole row kept, a repeated identical upsert and a delete of
    a key not held become nothing. It keeps one row per key, for as long as the key lives."""

    KIND = OperatorKind.CHANGELOG_NORMALIZE
    stateful = True
    keys: tuple[str, ...] = field(kw_only=True)

    def describe(self) -> str:
        return f"key=[{', '.join(self.keys)}]"

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        # an upsert on the key whose updates also carry the row taken back (-U), as every
        # changelog operator emits them
        return Changelog(Mode.UPSERT, self.keys)


@dataclass(frozen=True, eq=False)
class TopN(Unary):
    stateful = True
    partition_keys: tuple[str, ...] = field(kw_only=True)
    order: tuple[tuple[str, bool], ...] = field(kw_only=True)  # (field, descending)
    n: int = field(kw_only=True)
    rank_field: str | None = field(default=None, kw_only=True)
    rank_func: AggFunc = field(default=AggFunc.ROW_NUMBER, kw_only=True)
    window: WindowSpec | None = field(default=None, kw_only=True)  # window Top-N
    rule: str = field(default="", kw_only=True)  # the rewrite that made it (planner.logical.window_argmax); "": written

    @property
    def kind(self) -> OperatorKind:
        return OperatorKind.WINDOW_TOP_N if self.window else OperatorKind.TOP_N

    def describe(self) -> str:
        order = ", ".join(f"{f} {'DESC' if d else 'ASC'}" for f, d in self.order)
        rank = f"rankType=[{self.rank_func.value}], " if self.rank_func != AggFunc.ROW_NUMBER else ""
        made = f", rewrittenFrom=[{self.rule}]" if self.rule else ""
        return f"{rank}rankRange=[1..{self.n}], partitionBy=[{', '.join(self.partition_keys)}], orderBy=[{order}]{made}"

    @property
    def top1(self) -> bool:
        """A ROW_NUMBER Top-1: one row per key, replaced (an upsert on the key)."""
        return self.n == 1 and self.rank_func == AggFunc.ROW_NUMBER

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        if self.window is not None:
            return INSERT_ONLY
        if self.top1:
            return Changelog(Mode.UPSERT, self.partition_keys)
        return RETRACT

    def waits_on_watermark(self) -> bool:
        return self.window is not None


@dataclass(frozen=True, eq=False)
class OverAggregate(Unary):
    KIND = OperatorKind.OVER_AGGREGATE
    stateful = True
    partition_keys: tuple[str, ...] = field(kw_only=True)
    order_field: str = field(kw_only=True)
    order: tuple[tuple[str, bool], ...] = field(default=(), kw_only=True)  # full ORDER BY
    rows: bool = field(kw_only=True)  # ROWS (count) or RANGE (time) frame
    preceding: int | None = field(kw_only=True)  # rows or ms; None = UNBOUNDED PRECEDING
    aggs: tuple[AggCall, ...] = field(kw_only=True)

    def describe(self) -> str:
        unit = "rows" if self.rows else "range"
        pre = "UNBOUNDED" if self.preceding is None else (str(self.preceding) if self.rows else fmt_ms(self.preceding))
        return (
            f"partitionBy=[{', '.join(self.partition_keys)}], orderBy=[{self.order_field}], "
            f"{unit}=[{pre} PRECEDING], select=[{', '.join(str(a) for a in self.aggs)}]"
        )

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return RETRACT if self.on_changes(all(i.insert_only for i in inputs)) else INSERT_ONLY

    def on_time(self) -> bool:
        """Ordered by one time attribute, ascending: rows are taken in time order, once."""
        f = self.input.field(self.order_field)
        return f is not None and f.time is not None and len(self.order) <= 1 and not any(d for _, d in self.order)

    def on_changes(self, input_insert_only: bool) -> bool:
        """Runs over changes (``sqlengine.changelog.over_changes``): its input updates, or its
        order is no time attribute. Each change updates the rows whose frame it reaches, so the
        result updates too (Flink 2.3 runs the second kind so; the first it cannot run)."""
        return not input_insert_only or not self.on_time()

    def waits_on_watermark(self) -> bool:
        f = self.input.field(self.order_field)
        return f is not None and f.time == TimeKind.ROWTIME and self.on_time()


@dataclass(frozen=True, eq=False)
class MatchRecognize(Unary):
    KIND = OperatorKind.MATCH_RECOGNIZE
    stateful = True
    partition_keys: tuple[str, ...] = field(kw_only=True)
    order_field: str = field(kw_only=True)
    within_ms: int | None = field(default=None, kw_only=True)
    pattern: str = field(default="", kw_only=True)
    spec: MatchSpec | None = field(default=None, kw_only=True)  # None only in hand-built plans
    then_by: tuple[tuple[str, bool], ...] = field(default=(), kw_only=True)  # ORDER BY time, then these (name, DESC)
    all_rows: bool = field(default=False, kw_only=True)  # ALL ROWS PER MATCH

    def describe(self) -> str:
        w = f", within={fmt_ms(self.within_ms)}" if self.within_ms else ""
        pattern = self.spec.pattern_sql() if self.spec is not None else self.pattern
        skip = f", skip=[{self.spec.skip.value}{' ' + self.spec.skip_var if self.spec.skip_var else ''}]" if self.spec else ""
        order = ", ".join([self.order_field, *(f"{n} {'DESC' if d else 'ASC'}" for n, d in self.then_by)])
        return f"partitionBy=[{', '.join(self.partition_keys)}], orderBy=[{order}], pattern=[{pattern}]{w}{skip}"

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return INSERT_ONLY

    def waits_on_watermark(self) -> bool:
        f = self.input.field(self.order_field)
        return f is not None and f.time == TimeKind.ROWTIME


@dataclass(frozen=True, eq=False)
class Sort(Unary):
    KIND = OperatorKind.SORT
    stateful = True
    order: tuple[tuple[str, bool], ...] = field(kw_only=True)
    limit: int | None = field(default=None, kw_only=True)

    def describe(self) -> str:
        order = ", ".join(f"{f} {'DESC' if d else 'ASC'}" for f, d in self.order)
        lim = f", limit={self.limit}" if self.limit is not None else ""
        return f"orderBy=[{order}]{lim}"

    @property
    def first_key(self) -> Field | None:
        return self.input.field(self.order[0][0]) if self.order else None

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return RETRACT if self.limit is not None and self.order else inputs[0]

    def waits_on_watermark(self) -> bool:
        first = self.first_key
        return self.limit is None and first is not None and first.time == TimeKind.ROWTIME
