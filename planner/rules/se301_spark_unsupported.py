"""SE301: what cannot run on Spark as written, and why. The reasons are the checker's problems
(``planner.analysis.check``): the same ones ``engine.start`` and the translator refuse."""

from __future__ import annotations

from collections.abc import Iterator

from planner.diagnostics import Category, Severity
from planner.rules.base import Finding, Rule, RuleContext


def check(ctx: RuleContext) -> Iterator[Finding]:
    where = "Spark Structured Streaming" if ctx.streaming else "Spark (batch mode)"
    for problem in ctx.plan_problems():
        yield Finding(problem.node, f"Cannot run on {where} as written: {problem.reason}", problem.hint, None, problem.at)


RULE = Rule(
    code="SE301",
    name="spark-unsupported",
    severity=Severity.ERROR,
    category=Category.UNSUPPORTED,
    summary="Cannot run on Spark Structured Streaming as written",
    check=check,
    streaming_only=False,
)
