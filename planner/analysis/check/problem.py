"""A reason a plan cannot run on Spark, about one operator (and, where there is one, the exact
expression inside it): a code from ``codes``, its parameters, and the text rendered from them."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from planner.analysis.check.codes import HINTS, MESSAGES, Code
from planner.logical.operators import Node
from planner.logical.specs import OperatorKind


@dataclass(frozen=True)
class Problem:
    code: Code
    node: Node = field(repr=False, compare=False)
    at: exp.Expr | None = field(default=None, repr=False, compare=False)  # the exact cause (a call)
    params: tuple[tuple[str, str], ...] = ()

    @property
    def node_id(self) -> int:
        return self.node.node_id

    @property
    def operator(self) -> OperatorKind:
        return self.node.kind

    @property
    def reason(self) -> str:
        """The reason in words (lower case, as it follows "Cannot run ... as written: ")."""
        return MESSAGES[self.code].format(operator=self.operator, **dict(self.params))

    @property
    def message(self) -> str:
        """The operator and the reason, as the run-time refusal says it."""
        return f"{self.operator}: {self.reason}"

    @property
    def hint(self) -> str | None:
        return HINTS.get(self.code)

    @property
    def position(self) -> exp.Expr | None:
        """Where to point in the statement: the exact cause, else the operator's syntax."""
        return self.at if self.at is not None else self.node.origin


def problem(code: Code, node: Node, at: exp.Expr | None = None, **params: str) -> Problem:
    return Problem(code, node, at, tuple(params.items()))
