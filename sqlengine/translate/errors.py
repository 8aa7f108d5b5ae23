"""A plan Spark cannot run, as the positioned error a user sees: the checker's problem
(``planner.analysis.check``) attached to the syntax it came from."""

from __future__ import annotations

from planner.analysis.check import Problem
from planner.problems import PlanningError


class TranslationError(PlanningError):
    """What the checker found Spark cannot run; ``message`` says which operator and why."""

    code = "SE301"

    @classmethod
    def of(cls, problem: Problem) -> TranslationError:
        return cls(problem.message, problem.position, problem.hint)
