"""Where a plan column comes from: the source table and column behind it, whether it is derived
from event time (a time bucket), whether its values come from a finite domain, and whether the
rows under a node are finite. State analysis and estimates rest on these answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from catalog import TableDef
from catalog.activity import KeyActivity
from catalog.connectors import spec_of
from planner.logical import typing as T
from planner.logical.joins import Join
from planner.logical.operators import Calc, Correlate, GroupAggregate, Node, Scan, Union, Values, WindowAggregate, WindowTVF


@dataclass(frozen=True)
class Origin:
    """A column traced as far as it goes: to a source column (``table``, ``path``) or to an
    expression over input columns (``expr`` at ``node``)."""

    table: TableDef | None = None
    path: str | None = None  # column, or nested path such as bid.auction
    expr: exp.Expr | None = None
    node: Node | None = None
    window: bool = False  # a window_start / window_end / window_time


class Lineage:
    def __init__(self, stats: dict[str, dict[str, str]] | None = None):
        # extra statistics by table (lint config): {'bid': {'stats.distinct.auction': '1000'}}
        self.stats = stats or {}
        self._cache: dict[tuple[int, str], Origin] = {}  # (node id, column) -> origin

    def origin(self, node: Node, name: str) -> Origin:
        key = (node.node_id, name)
        if key not in self._cache:
            self._cache[key] = self._origin(node, name)
        return self._cache[key]

    def _origin(self, node: Node, name: str) -> Origin:
        if isinstance(node, Scan):
            computed = dict(node.computed)
            if name in computed:
                return Origin(expr=computed[name], node=node, table=node.table)
            return Origin(table=node.table, path=name)
        if isinstance(node, Calc):
            expr = dict(node.projections).get(name)
            if expr is None:
                return Origin()
            path = _column_path(expr)
            if path is not None:
                base, rest = path
                inner = self.origin(node.input, base)
                if inner.path is not None and inner.table is not None:
                    return Origin(table=inner.table, path=".".join([inner.path, *rest]))
                return inner if not rest else Origin(expr=expr, node=node.input)
            return Origin(expr=expr, node=node.input)
        if isinstance(node, WindowTVF):
            f = node.field(name)
            if f is not None and f.window is not None:
                return Origin(window=True)
            return self.origin(node.input, name)
        if isinstance(node, (WindowAggregate, GroupAggregate)):
            f = node.field(name)
            if f is not None and f.window is not None:
                return Origin(window=True)
            if name in node.keys:
                return self.origin(node.input, name)
            return Origin()
        if isinstance(node, Join):
            names = node.field_names()
            if name not in names:
                return Origin()
            i = names.index(name)
            n_left = len(node.left.fields)
            child, j = (node.left, i) if i < n_left else (node.right, i - n_left)
            if j >= len(child.fields):
                return Origin()
            return self.origin(child, child.fields[j].name)
        if isinstance(node, Union):
            i = node.field_names().index(name) if name in node.field_names() else -1
            child = node.children[0]
            return self.origin(child, child.fields[i].name) if i >= 0 else Origin()
        if isinstance(node, Values):
            return Origin()
        if isinstance(node, Correlate):
            if node.input.field(name) is not None:
                return self.origin(node.input, name)
            return Origin()
        if node.inputs and node.inputs[0].field(name) is not None:
            return self.origin(node.inputs[0], name)
        return Origin()

    # -- questions -----------------------------------------------------------------------------

    def display(self, node: Node, name: str) -> str:
        """A column as the user wrote it: `$key0` -> its expression, `id$1` -> `id`."""
        if name.startswith("$"):
            o = self.origin(node, name)
            if o.expr is not None:
                from planner.dialect import Flink

                text = o.expr.sql(dialect=Flink)
                return text.replace("`", "")
        if "$" in name and not name.startswith("$"):
            return name.split("$", 1)[0]
        return name

    def sources(self, node: Node, names: tuple[str, ...]) -> list[tuple[str, str] | None]:
        out: list[tuple[str, str] | None] = []
        for n in names:
            o = self.origin(node, n)
            out.append((o.table.name, o.path) if o.table is not None and o.path is not None else None)
        return out

    def time_derived(self, node: Node, name: str) -> bool:
        """The column is a function of event time or a window bound: a new value keeps coming."""
        o = self.origin(node, name)
        if o.window:
            return True
        if o.expr is not None and o.node is not None:
            return any(self._is_time(o.node, c.name) for c in o.expr.find_all(exp.Column))
        return False

    def bucket_ms(self, node: Node, name: str) -> int | None:
        """The width of the time bucket a time-derived column stands for (DATE_FORMAT(ts,
        'yyyy-MM-dd') -> 1 day, FLOOR(ts TO HOUR) -> 1 hour), if it can be read off."""
        o = self.origin(node, name)
        expr = o.expr
        if expr is None:
            return None
        for lit in expr.find_all(exp.Literal):
            if lit.is_string:
                for token, ms in (("ss", 1000), ("mm", 60_000), ("HH", 3_600_000), ("dd", 86_400_000), ("MM", 30 * 86_400_000), ("yy", 365 * 86_400_000)):
                    if token in lit.this:
                        return ms
        text = expr.sql().upper()
        for unit, ms in (("SECOND", 1000), ("MINUTE", 60_000), ("HOUR", 3_600_000), ("DAY", 86_400_000)):
            if unit in text:
                return ms
        if "DATE" in text:
            return 86_400_000
        return None

    def _is_time(self, node: Node, name: str) -> bool:
        f = node.field(name)
        if f is not None and (f.time is not None or f.window is not None):
            return True
        o = self.origin(node, name)
        if o.window:
            return True
        if f is not None and T.is_type(f.type, *T.TIMESTAMPS) and o.table is not None:
            wm = o.table.watermark
            return wm is not None and wm.column.strip("`") == (o.path or "")
        return False

    def option(self, table: TableDef, key: str) -> str | None:
        """A statistic of the table: the lint configuration's, else the table's option."""
        extra = self.stats.get(table.name, {})
        return extra[key] if key in extra else table.options.get(key)

    def domain(self, table: TableDef, path: str) -> int | None:
        declared = self.option(table, f"stats.distinct.{path}")
        if declared is not None:
            try:
                return int(declared)
            except ValueError:
                return None
        spec = spec_of(table)
        return spec.column_domain(table, path) if spec is not None else None

    def avg_length(self, table: TableDef, path: str) -> int | None:
        """A string column's average characters: 'stats.avg-length.<col>', else the connector's
        generator."""
        declared = self.option(table, f"stats.avg-length.{path}")
        if declared is not None and declared.strip().isdigit():
            return int(declared)
        spec = spec_of(table)
        return spec.column_avg_length(table, path) if spec is not None else None

    def _stat(self, table: TableDef, key: str) -> float | None:
        value = self.option(table, key)
        try:
            return float(value) if value is not None else None
        except ValueError:
            return None

    def activity(self, table: TableDef, path: str) -> KeyActivity | None:
        """How a column's keys come and go: 'stats.active.<col>' (with 'stats.new-per-second.<col>',
        'stats.hot-share.<col>' and 'stats.hot-moves-per-second.<col>'), else the connector's
        generator, else a finite domain."""
        active = self._stat(table, f"stats.active.{path}")
        if active is not None:
            new = self._stat(table, f"stats.new-per-second.{path}") or 0.0
            hot = min(max(self._stat(table, f"stats.hot-share.{path}") or 0.0, 0.0), 1.0)
            moves = self._stat(table, f"stats.hot-moves-per-second.{path}") or 0.0
            return KeyActivity(active, new, hot, f"'stats.active.{path}' for `{table.name}`", moves)
        spec = spec_of(table)
        found = spec.column_activity(table, path) if spec is not None else None
        if found is not None:
            return found
        domain = self.domain(table, path)
        return KeyActivity(domain) if domain is not None else None

    def key_activity(self, node: Node, names: tuple[str, ...]) -> tuple[KeyActivity, ...] | None:
        """Each key column's activity, if every one is known."""
        found: list[KeyActivity] = []
        for n in names:
            o = self.origin(node, n)
            act = self.activity(o.table, o.path) if o.table is not None and o.path is not None else None
            if act is None:
                return None
            found.append(act)
        return tuple(found)

    def finite_domain(self, node: Node, names: tuple[str, ...]) -> bool:
        if not names:
            return False
        # a finite input is no finite domain: its state still grows with the input's size
        for n in names:
            o = self.origin(node, n)
            if o.table is None or o.path is None or self.domain(o.table, o.path) is None:
                return False
        return True

    def key_domain(self, node: Node, names: tuple[str, ...]) -> int | None:
        """Product of the key columns' domain sizes, if all are known."""
        total = 1
        for n in names:
            o = self.origin(node, n)
            size = self.domain(o.table, o.path) if o.table is not None and o.path is not None else None
            if size is None:
                return None
            total *= size
        return total

    def tables(self, node: Node) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.table.name for n in node.walk() if isinstance(n, Scan)))

    def scans(self, node: Node) -> list[Scan]:
        return [n for n in node.walk() if isinstance(n, Scan)]

    def bounded_input(self, node: Node) -> bool:
        """Whether every source under ``node`` is finite (its connector says so from its options)."""
        scans = self.scans(node)
        return bool(scans) and all(bounded_scan(s) for s in scans)


def bounded_job(plans: Sequence[Node]) -> bool:
    """Whether every source of a job's plans is finite: a streaming job that ends (on Spark's
    available-now trigger), which runs no batch without input."""
    return all(bounded_scan(n) for plan in plans for n in plan.walk() if isinstance(n, Scan))


def bounded_scan(scan: Scan) -> bool:
    """Whether the source is finite (its connector says so from its options)."""
    spec = spec_of(scan.source_table)
    return spec is not None and spec.bounded(scan.source_table)


def _column_path(e: exp.Expr) -> tuple[str, list[str]] | None:
    """`col` or `col.a.b` (struct access) as (col, [a, b])."""
    rest: list[str] = []
    while isinstance(e, exp.Dot):
        rest.insert(0, e.expression.name)
        e = e.this
    if isinstance(e, exp.Column) and not e.table:
        return e.name, rest
    return None
