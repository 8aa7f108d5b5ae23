"""What a rule is, and what a rule sees: the plan, its properties, state, estimates and the
checker's problems. A rule yields ``Finding``s; ``Rule.run`` makes them diagnostics."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from sqlglot import exp

from planner.analysis.check import Problem
from planner.analysis.lineage import Lineage
from planner.analysis.physical import Physical
from planner.analysis.properties import NodeProps
from planner.analysis.state import StateInfo
from planner.diagnostics import Category, Diagnostic, Severity
from planner.logical.operators import Node
from planner.logical.visit import distinct_nodes
from planner.problems import node_span
from planner.source import SourceText, Span


@dataclass(frozen=True)
class RuleContext:
    plan: Node
    props: dict[int, NodeProps]
    state: list[StateInfo]
    lineage: Lineage
    settings: dict[str, str]
    source: SourceText | None
    statement_span: Span | None
    # node id -> (estimate of the operator, estimates of its parts); None: no statistics
    estimates: dict[int, tuple[str | None, tuple[str | None, ...]]] = field(default_factory=dict)
    problems: Sequence[Problem] = ()  # what Spark cannot run, for the analysis's runtime mode
    streaming: bool = True
    physical: dict[int, Physical] = field(default_factory=dict)  # native or changelog operator, per node

    def estimate(self, node: Node, part_index: int | None = None) -> str | None:
        total, parts = self.estimates.get(node.node_id, (None, ()))
        if part_index is None:
            return total
        return parts[part_index] if part_index < len(parts) else None

    @cached_property
    def _nodes(self) -> tuple[Node, ...]:
        return tuple(distinct_nodes([self.plan]))

    def nodes(self) -> Iterable[Node]:
        """Every distinct node of the plan, pre-order (computed once for all rules)."""
        return self._nodes

    @cached_property
    def _state_by_node(self) -> dict[int, StateInfo]:
        return {s.node_id: s for s in self.state}

    def state_of(self, node: Node) -> StateInfo | None:
        return self._state_by_node.get(node.node_id)

    @cached_property
    def _parents(self) -> dict[int, Node]:
        parents: dict[int, Node] = {}
        for n in self.nodes():
            for child in n.inputs:
                parents.setdefault(child.node_id, n)
        return parents

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """Results rules share within one analysis (a rewrite two rules suggest)."""
        return {}

    def parent(self, node: Node) -> Node | None:
        return self._parents.get(node.node_id)

    def plan_problems(self) -> list[Problem]:
        """The checker's problems with an operator of this plan."""
        ids = {n.node_id for n in self.nodes()}
        return [p for p in self.problems if p.node_id in ids]

    def written(self, expr: exp.Expr | None) -> bool:
        """Whether ``expr`` was parsed from this statement's text, not from an expanded view's.
        Binding may detach copies of subtrees, so this checks that the positions sqlglot kept
        point at the same identifiers in this text."""
        if expr is None or self.source is None or self.statement_span is None:
            return False
        for sub in expr.walk():
            meta = sub.meta if isinstance(sub, exp.Identifier) else None
            if not meta or "start" not in meta:
                continue
            start, end = meta["start"], meta.get("end", meta["start"]) + 1
            if not (self.statement_span.start <= start and end <= self.statement_span.end):
                return False
            return self.source.text[start:end].strip("`\"").lower() == sub.name.lower()
        return False

    def _written_call(self, call: exp.Expr) -> bool:
        meta = call.meta
        if "start" not in meta or self.source is None or self.statement_span is None:
            return False
        start, end = meta["start"], meta.get("end", meta["start"]) + 1
        inside = self.statement_span.start <= start and end <= self.statement_span.end
        return inside and self.source.text[start:end].strip("`\"").lower() == call.name.lower()

    def span(self, node: Node | None, at: exp.Expr | None = None) -> Span:
        """Where ``node`` is in the statement's text. An operator from an expanded view has its
        origin in the view's own text: it is placed at the nearest enclosing operator written here
        (the view reference, the join, ...), never at offsets of another text. ``at`` is a more
        precise place (a function call), used when it was written here."""
        default = self.statement_span or Span(0, 0)
        if at is not None and self._written_call(at):
            return Span(at.meta["start"], at.meta["end"] + 1)
        while node is not None:
            if self.written(node.origin):
                return node_span(node.origin, default)
            node = self._parents.get(node.node_id)
        return default


Rewrite = str | Callable[[], str | None] | None


@dataclass(frozen=True)
class Finding:
    """What a rule found about one operator: the message, a hint, a rewrite (concrete SQL, or a
    function that makes it: printing a large SELECT costs more than the analysis) and, where
    there is one, the exact place inside the operator (a function call)."""

    node: Node | None
    message: str
    hint: str | None = None
    rewrite: Rewrite = None
    at: exp.Expr | None = None


# Rewrites are concrete SQL, and printing a large SELECT costs more than the analysis: a rule
# yields a rewrite as a function, called unless this setting is "off" (lint formats without
# rewrites set it).
REWRITES_SETTING = "sqlengine.lint.rewrites"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, the docs page is docs/rules/<code>.md
    severity: Severity
    category: Category
    summary: str
    check: Callable[[RuleContext], Iterable[Finding]]
    # state that grows forever and processing time are questions of a streaming job; in batch
    # mode every input is finite and runs to its end (what Spark can run is asked in both)
    streaming_only: bool = True

    def run(self, ctx: RuleContext) -> list[Diagnostic]:
        if self.streaming_only and not ctx.streaming:
            return []
        out = []
        want_rewrites = ctx.settings.get(REWRITES_SETTING, "on") != "off"
        for finding in self.check(ctx):
            rewrite = finding.rewrite
            if callable(rewrite):
                rewrite = rewrite() if want_rewrites else None
            node = finding.node
            out.append(
                Diagnostic(
                    code=self.code,
                    severity=self.severity,
                    category=self.category,
                    message=finding.message,
                    hint=finding.hint,
                    rewrite=rewrite,
                    source=ctx.source,
                    span=ctx.span(node, finding.at),
                    operator=node.kind if node is not None else None,
                    node_id=node.node_id if node is not None else None,
                )
            )
        return out
