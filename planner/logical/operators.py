"""Logical operators: a tree of frozen dataclasses; ``str(node)`` prints the plan.

Expressions inside a node are sqlglot trees whose column references are the unqualified names of
the node's input fields (for a join: the left fields followed by the right fields, names made
unique with `$n` suffixes). ``origin`` is the syntax node an operator came from, for positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from sqlglot import exp

from catalog import TableDef
from planner.dialect import Flink
from planner.logical.fields import Field


def sql(e: exp.Expr | None) -> str:
    return e.sql(dialect=Flink) if e is not None else ""


def fmt_ms(ms: int | None) -> str:
    if ms is None:
        return "?"
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000), ("s", 1000)):
        if ms >= size and ms % size == 0:
            return f"{ms // size} {unit}"
    return f"{ms} ms"


class WindowKind(str, Enum):
    TUMBLE = "TUMBLE"
    HOP = "HOP"
    CUMULATE = "CUMULATE"
    SESSION = "SESSION"


@dataclass(frozen=True)
class WindowSpec:
    id: int
    kind: WindowKind
    time_field: str  # the input field the window is assigned on
    size_ms: int | None = None  # TUMBLE/HOP size, CUMULATE max size
    slide_ms: int | None = None  # HOP slide
    step_ms: int | None = None  # CUMULATE step
    gap_ms: int | None = None  # SESSION gap
    offset_ms: int = 0
    partition_keys: tuple[str, ...] = ()  # SESSION ... PARTITION BY

    def __str__(self) -> str:
        args = {
            WindowKind.TUMBLE: f"size={fmt_ms(self.size_ms)}",
            WindowKind.HOP: f"slide={fmt_ms(self.slide_ms)}, size={fmt_ms(self.size_ms)}",
            WindowKind.CUMULATE: f"step={fmt_ms(self.step_ms)}, max size={fmt_ms(self.size_ms)}",
            WindowKind.SESSION: f"gap={fmt_ms(self.gap_ms)}",
        }[self.kind]
        part = f", partition by {', '.join(self.partition_keys)}" if self.partition_keys else ""
        return f"{self.kind.value}({self.time_field}, {args}{part})"

    @property
    def retention_ms(self) -> int | None:
        """How long after its start a window stays open (before the watermark delay)."""
        if self.kind == WindowKind.SESSION:
            return None  # a session stays open as long as rows keep arriving within the gap
        return self.size_ms


@dataclass(frozen=True)
class AggCall:
    name: str  # output field name
    func: str  # COUNT, SUM, MIN, MAX, AVG, ... upper case
    args: tuple[exp.Expr, ...]
    distinct: bool = False
    filter: exp.Expr | None = None
    star: bool = False  # COUNT(*)

    def __str__(self) -> str:
        inner = "*" if self.star else ", ".join(sql(a) for a in self.args)
        d = "DISTINCT " if self.distinct else ""
        f = f" FILTER (WHERE {sql(self.filter)})" if self.filter is not None else ""
        return f"{self.func}({d}{inner}){f} AS {self.name}"


@dataclass(frozen=True, eq=False)
class Node:
    fields: tuple[Field, ...]
    origin: exp.Expr | None = field(default=None, repr=False, kw_only=True)
    # state TTL from a STATE_TTL hint: (ttl,) for one input, (left, right) for a join
    state_ttl_ms: tuple[int | None, ...] = field(default=(), kw_only=True)

    @property
    def inputs(self) -> tuple[Node, ...]:
        return ()

    @property
    def kind(self) -> str:
        return type(self).__name__

    def describe(self) -> str:
        return ""

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)

    def walk(self):  # type: ignore[no-untyped-def]
        """Pre-order: this node, then its inputs."""
        yield self
        for child in self.inputs:
            yield from child.walk()

    def tree_lines(self, annotate=None, prefix: str = "") -> list[str]:  # type: ignore[no-untyped-def]
        head = f"{self.kind}({self.describe()})" if self.describe() else self.kind
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
    table: TableDef = field(kw_only=True)
    alias: str | None = field(default=None, kw_only=True)
    # computed columns, bound to the physical/metadata fields: name -> expression
    computed: tuple[tuple[str, exp.Expr], ...] = field(default=(), kw_only=True)
    watermark_field: str | None = field(default=None, kw_only=True)
    watermark_delay_ms: int | None = field(default=None, kw_only=True)  # None: not a constant delay
    watermark_expr: exp.Expr | None = field(default=None, kw_only=True)
    hints: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)  # OPTIONS(...) hint

    def describe(self) -> str:
        s = f"table=[{self.table.name}], fields=[{', '.join(self.field_names())}]"
        if self.watermark_field:
            s += f", watermark={self.watermark_field} - {fmt_ms(self.watermark_delay_ms)}"
        return s

    @property
    def options(self) -> dict[str, str]:
        return {**self.table.options, **dict(self.hints)}


@dataclass(frozen=True, eq=False)
class Values(Node):
    rows: tuple[tuple[exp.Expr, ...], ...] = field(kw_only=True)

    def describe(self) -> str:
        return f"rows={len(self.rows)}"


# -- stateless ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Calc(Unary):
    """Projection and filter, no state."""

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


@dataclass(frozen=True, eq=False)
class WindowTVF(Unary):
    """A window table function: adds window_start, window_end, window_time to each row."""

    window: WindowSpec = field(kw_only=True)

    def describe(self) -> str:
        return str(self.window)


@dataclass(frozen=True, eq=False)
class Correlate(Unary):
    """LATERAL TABLE(f(..)) / CROSS JOIN UNNEST(..): rows expanded per input row, no state."""

    call: exp.Expr = field(kw_only=True)
    outer: bool = field(default=False, kw_only=True)

    def describe(self) -> str:
        return f"{'left ' if self.outer else ''}{sql(self.call)}"


@dataclass(frozen=True, eq=False)
class Union(Node):
    children: tuple[Node, ...] = field(kw_only=True)
    all: bool = field(default=True, kw_only=True)

    @property
    def inputs(self) -> tuple[Node, ...]:
        return self.children

    def describe(self) -> str:
        return "all=true" if self.all else "all=false"


@dataclass(frozen=True, eq=False)
class Sink(Unary):
    table: TableDef = field(kw_only=True)
    overwrite: bool = field(default=False, kw_only=True)
    static_partition: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)

    def describe(self) -> str:
        return f"table=[{self.table.name}], fields=[{', '.join(self.field_names())}]"


# -- stateful ----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GroupAggregate(Unary):
    keys: tuple[str, ...] = field(kw_only=True)  # input field names
    aggs: tuple[AggCall, ...] = field(kw_only=True)
    distinct_only: bool = field(default=False, kw_only=True)  # SELECT DISTINCT

    @property
    def kind(self) -> str:
        return "Distinct" if self.distinct_only else "GroupAggregate"

    def describe(self) -> str:
        keys = f"groupBy=[{', '.join(self.keys)}]"
        if self.distinct_only:
            return keys
        return f"{keys}, select=[{', '.join(str(a) for a in self.aggs)}]"


@dataclass(frozen=True, eq=False)
class WindowAggregate(Unary):
    window: WindowSpec = field(kw_only=True)
    keys: tuple[str, ...] = field(kw_only=True)  # non-window group keys (input field names)
    aggs: tuple[AggCall, ...] = field(kw_only=True)
    legacy: bool = field(default=False, kw_only=True)  # GROUP BY TUMBLE(ts, ..) form

    def describe(self) -> str:
        keys = f", groupBy=[{', '.join(self.keys)}]" if self.keys else ""
        return f"window=[{self.window}]{keys}, select=[{', '.join(str(a) for a in self.aggs)}]"


class JoinKind(str, Enum):
    INNER = "INNER"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    FULL = "FULL"
    SEMI = "SEMI"
    ANTI = "ANTI"


@dataclass(frozen=True, eq=False)
class Join(Node):
    left: Node = field(kw_only=True)
    right: Node = field(kw_only=True)
    join_kind: JoinKind = field(default=JoinKind.INNER, kw_only=True)
    condition: exp.Expr | None = field(default=None, kw_only=True)  # over left+right fields
    equi_keys: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)  # (left, right)

    @property
    def inputs(self) -> tuple[Node, ...]:
        return (self.left, self.right)

    @property
    def kind(self) -> str:
        return "RegularJoin"

    def describe(self) -> str:
        s = f"joinType=[{self.join_kind.value}]"
        if self.condition is not None:
            s += f", where=[{sql(self.condition)}]"
        return s


@dataclass(frozen=True, eq=False)
class IntervalJoin(Join):
    """Rows of each side are kept only while the other side's time bound can still match."""

    left_time: str = field(kw_only=True)
    right_time: str = field(kw_only=True)
    # left_time BETWEEN right_time + lower_ms AND right_time + upper_ms
    lower_ms: int = field(kw_only=True)
    upper_ms: int = field(kw_only=True)

    @property
    def kind(self) -> str:
        return "IntervalJoin"

    def describe(self) -> str:
        return (
            f"joinType=[{self.join_kind.value}], "
            f"bound=[{self.left_time} BETWEEN {self.right_time} {_signed(self.lower_ms)} "
            f"AND {self.right_time} {_signed(self.upper_ms)}], where=[{sql(self.condition)}]"
        )


def _signed(ms: int) -> str:
    return f"- {fmt_ms(-ms)}" if ms < 0 else f"+ {fmt_ms(ms)}"


@dataclass(frozen=True, eq=False)
class WindowJoin(Join):
    window: WindowSpec = field(kw_only=True)

    @property
    def kind(self) -> str:
        return "WindowJoin"

    def describe(self) -> str:
        return f"joinType=[{self.join_kind.value}], window=[{self.window}], where=[{sql(self.condition)}]"


@dataclass(frozen=True, eq=False)
class TemporalJoin(Join):
    """``FOR SYSTEM_TIME AS OF left.rowtime`` against a versioned table."""

    left_time: str = field(kw_only=True)

    @property
    def kind(self) -> str:
        return "TemporalJoin"


@dataclass(frozen=True, eq=False)
class LookupJoin(Join):
    """``FOR SYSTEM_TIME AS OF left.proctime``: each row looks up the current right side."""

    @property
    def kind(self) -> str:
        return "LookupJoin"


@dataclass(frozen=True, eq=False)
class Deduplicate(Unary):
    keys: tuple[str, ...] = field(kw_only=True)
    order_field: str = field(kw_only=True)
    keep_last: bool = field(kw_only=True)
    rank_field: str | None = field(default=None, kw_only=True)  # projected row number, if any
    window: WindowSpec | None = field(default=None, kw_only=True)  # window deduplication

    @property
    def kind(self) -> str:
        return "WindowDeduplicate" if self.window else "Deduplicate"

    def describe(self) -> str:
        keep = "LastRow" if self.keep_last else "FirstRow"
        return f"keep=[{keep}], key=[{', '.join(self.keys)}], order=[{self.order_field}]"


@dataclass(frozen=True, eq=False)
class TopN(Unary):
    partition_keys: tuple[str, ...] = field(kw_only=True)
    order: tuple[tuple[str, bool], ...] = field(kw_only=True)  # (field, descending)
    n: int = field(kw_only=True)
    rank_field: str | None = field(default=None, kw_only=True)
    rank_func: str = field(default="ROW_NUMBER", kw_only=True)
    window: WindowSpec | None = field(default=None, kw_only=True)  # window Top-N

    @property
    def kind(self) -> str:
        return "WindowTopN" if self.window else "TopN"

    def describe(self) -> str:
        order = ", ".join(f"{f} {'DESC' if d else 'ASC'}" for f, d in self.order)
        return f"rankRange=[1..{self.n}], partitionBy=[{', '.join(self.partition_keys)}], orderBy=[{order}]"


@dataclass(frozen=True, eq=False)
class OverAggregate(Unary):
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


@dataclass(frozen=True, eq=False)
class MatchRecognize(Unary):
    partition_keys: tuple[str, ...] = field(kw_only=True)
    order_field: str = field(kw_only=True)
    within_ms: int | None = field(default=None, kw_only=True)
    pattern: str = field(default="", kw_only=True)

    def describe(self) -> str:
        w = f", within={fmt_ms(self.within_ms)}" if self.within_ms else ""
        return f"partitionBy=[{', '.join(self.partition_keys)}], orderBy=[{self.order_field}], pattern=[{self.pattern}]{w}"


@dataclass(frozen=True, eq=False)
class Sort(Unary):
    order: tuple[tuple[str, bool], ...] = field(kw_only=True)
    limit: int | None = field(default=None, kw_only=True)

    def describe(self) -> str:
        order = ", ".join(f"{f} {'DESC' if d else 'ASC'}" for f, d in self.order)
        lim = f", limit={self.limit}" if self.limit is not None else ""
        return f"orderBy=[{order}]{lim}"


STATEFUL = (
    GroupAggregate,
    WindowAggregate,
    Join,
    Deduplicate,
    TopN,
    OverAggregate,
    MatchRecognize,
    Sort,
)


def is_stateful(node: Node) -> bool:
    return isinstance(node, STATEFUL)


def waits_on_watermark(node: Node) -> bool:
    """Whether the operator holds rows back until the watermark passes a bound (a window's end,
    an interval join's bound, a session gap); group aggregation, keep-first deduplication and
    regular joins emit at once."""
    if isinstance(node, (WindowAggregate, IntervalJoin, WindowJoin)):
        return True
    return isinstance(node, (Deduplicate, TopN)) and node.window is not None
