"""The stateful-operator fingerprint of a job: per streaming query (pipeline) of the job, its
sources and, for each operator that keeps state, the facts its state is shaped by: its kind, keys,
aggregate calls, window or ranking, the rows it keeps, and how it runs (Spark's own operator or a
changelog operator). Written beside a job's checkpoint (``sqlengine-plan.json``) when the job
starts, and compared with the new plan's before a checkpoint or savepoint is resumed
(``planner.resume.compatibility``).

Columns are written as what they are, not as what they are called: a key or argument is traced
through the stateless projections below its operator (and through the keys and calls of an
aggregation below), so ``GROUP BY uid`` over ``user_id + 1 AS uid`` is the key ``user_id + 1``,
and renaming a column changes nothing while changing its expression does. Filters are not part
of it: which rows reach an operator may change without changing its state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace

from sqlglot import exp

from planner.analysis.analyze import Analysis
from planner.analysis.physical import Physical
from planner.logical.joins import IntervalJoin, Join, TemporalJoin, WindowJoin
from planner.logical.operators import (
    Calc,
    Deduplicate,
    GroupAggregate,
    MatchRecognize,
    Node,
    OverAggregate,
    Scan,
    Sink,
    Sort,
    TopN,
    Union,
    WindowAggregate,
    WindowTVF,
)
from planner.logical.specs import AggCall, fmt_ms, sql
from planner.logical.visit import distinct_nodes

FORMAT = 1  # bumped when what a fingerprint holds changes: an older one is then not compared
DISTINCT_UNION = "Union"
TIES_BY_BATCH = "ties by micro-batch time"
TIES_BY_ARRIVAL = "ties by micro-batch time, then arrival"


@dataclass(frozen=True)
class Term:
    """A key, an aggregate call or a kept column: what it computes, and its type."""

    text: str
    type: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class OperatorPrint:
    kind: str  # EXPLAIN's operator name: GroupAggregate, Deduplicate, ...
    node: int  # its node id in the plan it was made from (for messages; never compared)
    keys: tuple[Term, ...] = ()
    calls: tuple[Term, ...] = ()  # aggregate calls
    # the other facts its state depends on, each a line: a window, an order and limit, a join's
    # kind and bounds, a state TTL
    shape: tuple[str, ...] = ()
    rows: tuple[tuple[Term, ...], ...] = ()  # per input: the columns of the rows it keeps whole
    runs_as: str = "native"  # "native", or "changelog operator" with its ranking strategy
    why: str = field(default="", compare=False)  # why it runs as a changelog operator (for messages)

    @property
    def name(self) -> str:
        return f"{self.kind} #{self.node}"

    def __str__(self) -> str:
        keys = f" (keyed by {', '.join(map(str, self.keys))})" if self.keys else ""
        return f"{self.name}{keys}"


@dataclass(frozen=True)
class PipelinePrint:
    """One streaming query of the job (its checkpoint is ``q<i>``)."""

    sink: str  # the table it writes (or "result" for a SELECT)
    sources: tuple[str, ...]  # in the order Spark numbers them in the checkpoint
    operators: tuple[OperatorPrint, ...]


@dataclass(frozen=True)
class JobPrint:
    pipelines: tuple[PipelinePrint, ...]
    backend: str  # the state store provider the checkpoint is written with
    buckets: int | None = None  # 'sqlengine.changelog.buckets', when a changelog operator runs
    format: int = FORMAT

    @property
    def stateful(self) -> bool:
        return any(p.operators for p in self.pipelines)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, ensure_ascii=False)

    @staticmethod
    def from_json(text: str) -> JobPrint:
        """Raises ValueError (or KeyError, TypeError) on a file that is not a fingerprint."""
        raw = json.loads(text)

        def terms(items: Sequence[dict[str, str]]) -> tuple[Term, ...]:
            return tuple(Term(**t) for t in items)

        pipelines = tuple(
            PipelinePrint(
                p["sink"],
                tuple(p["sources"]),
                tuple(
                    OperatorPrint(
                        o["kind"], o["node"], terms(o["keys"]), terms(o["calls"]), tuple(o["shape"]),
                        tuple(terms(r) for r in o["rows"]), o["runs_as"], o.get("why", ""),
                    )
                    for o in p["operators"]
                ),
            )
            for p in raw["pipelines"]
        )
        return JobPrint(pipelines, raw["backend"], raw.get("buckets"), raw["format"])


# -- columns as what they compute ----------------------------------------------------------------


def _plain(e: exp.Expr) -> str:
    return sql(e).replace("`", "")


class Definitions:
    """What a column of a node's output computes, traced through stateless projections (and the
    outputs of an aggregation: a key is what it groups by, an aggregate its call)."""

    def __init__(self) -> None:
        self._memo: dict[tuple[int, str], exp.Expr] = {}

    def of(self, node: Node, name: str) -> exp.Expr:
        key = (node.node_id, name)
        if key not in self._memo:
            self._memo[key] = self._trace(node, name)
        return self._memo[key]

    def text(self, node: Node, name: str) -> str:
        return _plain(self.of(node, name))

    def term(self, node: Node, name: str) -> Term:
        f = node.field(name)
        return Term(self.text(node, name), f.type_sql if f is not None else "")

    def inline(self, node: Node, e: exp.Expr) -> exp.Expr:
        """``e``, an expression over ``node``'s fields, over what those fields compute."""

        def swap(sub: exp.Expr) -> exp.Expr:
            if not isinstance(sub, exp.Column):
                return sub
            inner = self.of(node, sub.name).copy()
            simple = isinstance(inner, (exp.Column, exp.Literal, exp.Func, exp.Paren, exp.Var))
            return inner if simple else exp.Paren(this=inner)

        return e.copy().transform(swap)

    def _trace(self, node: Node, name: str) -> exp.Expr:
        if isinstance(node, Calc):
            projected = dict(node.projections).get(name)
            if projected is not None:
                return self.inline(node.input, projected)
        elif isinstance(node, WindowTVF):
            f = node.field(name)
            if f is not None and f.window is None:
                return self.of(node.input, name)
        elif isinstance(node, (GroupAggregate, WindowAggregate)):
            if name in node.keys:
                return self.of(node.input, name)
            call = next((a for a in node.aggs if a.name == name), None)
            if call is not None:
                return exp.var(self.call_text(node.input, call))  # printed as it is
        return exp.column(name)

    def call_text(self, node: Node, call: AggCall) -> str:
        args = "*" if call.star else ", ".join(_plain(self.inline(node, a)) for a in call.args)
        text = f"{call.function_name}({'DISTINCT ' if call.distinct else ''}{args})"
        if call.filter is not None:
            text += f" FILTER (WHERE {_plain(self.inline(node, call.filter))})"
        return text


# -- the fingerprint -----------------------------------------------------------------------------


def _runs_as(physical: Physical | None) -> str:
    if physical is None or not physical.changelog:
        return "native"
    # the JVM operator keeps its state in its own layout: a Python operator's cannot be read by it
    return f"{physical.name} ({physical.strategy})" if physical.strategy else physical.name


def _ties(node: Deduplicate | TopN, physical: Physical | None) -> tuple[str, ...]:
    """A native Top-1 or deduplication (Spark's max_by) keeps each row's micro-batch time beside
    it to order ties, and its arrival number where the first of them stays
    (``Physical.ties_by_arrival``): a state written before it did has another layout."""
    if (physical is not None and physical.changelog) or node.window is not None:
        return ()
    return (TIES_BY_ARRIVAL,) if physical is not None and physical.ties_by_arrival else (TIES_BY_BATCH,)


def _order(defs: Definitions, node: Node, order: Sequence[tuple[str, bool]]) -> str:
    return ", ".join(f"{defs.text(node, name)} {'DESC' if desc else 'ASC'}" for name, desc in order)


def _row(node: Node) -> tuple[Term, ...]:
    return tuple(Term(f.name, f.type_sql) for f in node.fields)


def _ttl(node: Node, physical: Physical | None, session_ttl_ms: int | None) -> tuple[str, ...]:
    """A changelog operator keeps the TTL it started with in its state."""
    if physical is None or not physical.changelog:
        return ()
    return tuple(f"state TTL {fmt_ms(t)}" for t in node.state_ttls(session_ttl_ms) if t)


def operator_print(node: Node, analysis: Analysis, defs: Definitions) -> OperatorPrint | None:
    """The fingerprint of one node, or None for a node that keeps no state."""
    found = _operator_print(node, analysis, defs)
    physical = analysis.physical_of(node)
    if found is None or physical is None or physical.why is None:
        return found
    return replace(found, why=str(physical.why))


def _operator_print(node: Node, analysis: Analysis, defs: Definitions) -> OperatorPrint | None:
    physical = analysis.physical_of(node)
    changelog = physical is not None and physical.changelog
    runs_as = _runs_as(physical)
    ttl = _ttl(node, physical, analysis.ttl_ms)
    kind = str(node.kind)
    if isinstance(node, Union):
        if node.all:
            return None
        return OperatorPrint(DISTINCT_UNION, node.node_id, shape=("distinct",), rows=(_row(node),))
    if not node.stateful:
        return None
    if isinstance(node, (GroupAggregate, WindowAggregate)):
        inp = node.input
        keys = tuple(defs.term(inp, k) for k in node.keys)
        calls = tuple(Term(defs.call_text(inp, a), _type(node, a.name)) for a in node.aggs)
        shape: tuple[str, ...] = ()
        if isinstance(node, WindowAggregate):
            shape = (f"window {_window(defs, inp, node.window)}",)
        elif node.set_operation:
            shape = (node.set_operation,)
        return OperatorPrint(kind, node.node_id, keys, calls, shape + ttl, runs_as=runs_as)
    if isinstance(node, Deduplicate):
        inp = node.input
        keep = f"keep {'last' if node.keep_last else 'first'} row by {defs.text(inp, node.order_field)}"
        window = (f"window {_window(defs, inp, node.window)}",) if node.window else ()
        # keep-first on processing time is Spark's dropDuplicates: it keeps the keys, not the rows
        keeps_rows = changelog or node.keep_last or not node.on_proctime or node.window is not None
        rows = (_row(inp),) if keeps_rows else ()
        ties = _ties(node, physical) if keeps_rows else ()
        return OperatorPrint(kind, node.node_id, tuple(defs.term(inp, k) for k in node.keys), (), (keep, *window, *ties, *ttl), rows, runs_as)
    if isinstance(node, TopN):
        inp = node.input
        rank = f"{node.rank_func.value} <= {node.n} by {_order(defs, inp, node.order)}"
        window = (f"window {_window(defs, inp, node.window)}",) if node.window else ()
        shown = ("rank column",) if node.rank_field else ()
        keys = tuple(defs.term(inp, k) for k in node.partition_keys)
        return OperatorPrint(kind, node.node_id, keys, (), (rank, *window, *shown, *_ties(node, physical), *ttl), (_row(inp),), runs_as)
    if isinstance(node, Sort):
        limit = f", limit {node.limit}" if node.limit is not None else ""
        return OperatorPrint(kind, node.node_id, (), (), (f"order by {_order(defs, node.input, node.order)}{limit}",), (_row(node.input),), runs_as)
    if isinstance(node, Join):
        return _join_print(node, defs, physical, runs_as, ttl)
    if isinstance(node, (OverAggregate, MatchRecognize)):  # the frame and calls are in describe()
        keys = tuple(defs.term(node.input, k) for k in node.partition_keys)
        return OperatorPrint(kind, node.node_id, keys, shape=(node.describe(),), rows=(_row(node.input),), runs_as=runs_as)
    return OperatorPrint(kind, node.node_id, shape=(node.describe(),), runs_as=runs_as)


def _join_print(node: Join, defs: Definitions, physical: Physical | None, runs_as: str, ttl: tuple[str, ...]) -> OperatorPrint:
    keys = tuple(
        Term(f"{defs.text(node.left, a)} = {defs.text(node.right, b)}", _type(node.left, a)) for a, b in node.equi_keys
    )
    shape = [f"{node.join_kind.value} join"]
    if node.condition is not None:
        shape.append(f"on {_plain(node.condition)}")
    if isinstance(node, IntervalJoin):
        shape.append(f"bound {node.left_time} between {node.right_time} + {node.lower_ms} ms and + {node.upper_ms} ms")
    if isinstance(node, WindowJoin):
        shape.append(f"window {node.window}")
    if isinstance(node, TemporalJoin):
        shape.append(f"as of {node.left_time}")
    if physical is not None and any(physical.counted):
        sides = [side for side, counted in zip(("left", "right"), physical.counted, strict=True) if counted]
        shape.append(f"counting matches on the {' and '.join(sides)}")
    return OperatorPrint(str(node.kind), node.node_id, keys, (), (*shape, *ttl), (_row(node.left), _row(node.right)), runs_as)


def _type(node: Node, name: str) -> str:
    f = node.field(name)
    return f.type_sql if f is not None else ""


def _window(defs: Definitions, node: Node, window: object) -> str:
    """A window as EXPLAIN prints it, on what its time column computes."""
    text = str(window)
    time_field = getattr(window, "time_field", None)
    if time_field:
        traced = defs.text(node, time_field)
        if traced != time_field:
            text = text.replace(f"({time_field},", f"({traced},", 1)
    return text


def scans_of(plan: Node) -> tuple[str, ...]:
    """The tables a plan reads, in plan order (the engine gives its own list where a source has
    more to it, such as an end-of-input marker)."""
    return tuple(n.table.name for n in distinct_nodes([plan]) if isinstance(n, Scan))


def pipeline_print(plan: Node, analysis: Analysis, sources: Sequence[str] | None = None) -> PipelinePrint:
    defs = Definitions()
    operators = tuple(p for n in distinct_nodes([plan]) if (p := operator_print(n, analysis, defs)) is not None)
    sink = plan.table.name if isinstance(plan, Sink) else "result"
    return PipelinePrint(sink, tuple(sources) if sources is not None else scans_of(plan), operators)


def job_print(
    analysis: Analysis,
    *,
    backend: str,
    buckets: int | None = None,
    sources: Sequence[Sequence[str]] | None = None,
) -> JobPrint:
    """The fingerprint of the job that runs ``analysis``'s plans, one pipeline per plan.
    ``buckets`` is kept only when a changelog operator runs (nothing else reads it)."""
    pipelines = tuple(
        pipeline_print(plan, analysis, sources[i] if sources is not None else None) for i, plan in enumerate(analysis.plans)
    )
    changelog = any(o.runs_as != "native" for p in pipelines for o in p.operators)
    return JobPrint(pipelines, backend, buckets if changelog else None)
