"""Why a plan cannot become a Spark job, attached to the syntax node it came from."""

from __future__ import annotations

from sqlglot import exp

from planner.problems import PlanningError


class TranslationError(PlanningError):
    """The plan (or an expression in it) has no translation to Spark; ``message`` says why."""

    code = "SE301"

    def __init__(self, message: str, node: exp.Expr | None = None, hint: str | None = None):
        super().__init__(message, node, hint)
