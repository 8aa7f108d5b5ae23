"""What a rule is, and what a rule sees: the plan, its properties, state and estimates."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from planner.diagnostics import Category, Diagnostic, Severity
from planner.lineage import Lineage
from planner.logical.operators import Node
from planner.problems import node_span
from planner.properties import NodeProps
from planner.source import SourceText, Span
from planner.state import StateInfo


@dataclass(frozen=True)
class RuleContext:
    plan: Node
    props: dict[int, NodeProps]
    state: list[StateInfo]
    lineage: Lineage
    settings: dict[str, str]
    source: SourceText | None
    statement_span: Span | None
    # id(StateInfo.node) -> (estimate of the operator, estimates of its parts); None: no statistics
    estimates: dict[int, tuple[str | None, tuple[str | None, ...]]] = field(default_factory=dict)

    def estimate(self, node: Node, part_index: int | None = None) -> str | None:
        total, parts = self.estimates.get(id(node), (None, ()))
        if part_index is None:
            return total
        return parts[part_index] if part_index < len(parts) else None

    def nodes(self) -> Iterable[Node]:
        seen: set[int] = set()
        for n in self.plan.walk():
            if id(n) not in seen:
                seen.add(id(n))
                yield n

    def state_of(self, node: Node) -> StateInfo | None:
        return next((s for s in self.state if s.node is node), None)

    def span(self, node: Node | None) -> Span | None:
        default = self.statement_span or Span(0, 0)
        if node is None or node.origin is None:
            return default
        return node_span(node.origin, default)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, the docs page is docs/rules/<code>-<name>.md
    severity: Severity
    category: Category
    summary: str
    check: Callable[[RuleContext], Iterable[tuple[Node | None, str, str | None, str | None]]]

    def run(self, ctx: RuleContext) -> list[Diagnostic]:
        out = []
        for node, message, hint, rewrite in self.check(ctx):
            out.append(
                Diagnostic(
                    code=self.code,
                    severity=self.severity,
                    category=self.category,
                    message=message,
                    hint=hint,
                    rewrite=rewrite,
                    source=ctx.source,
                    span=ctx.span(node),
                    operator=node.kind if node is not None else None,
                )
            )
        return out
