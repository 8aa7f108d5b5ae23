"""The diagnostics, one rule per module; ``RULES`` is the registry the linter and EXPLAIN run.

Every rule has a documentation page ``docs/rules/<CODE>.md`` with a bad and a good example, and
tests run the rule on both (tests/planner/test_rules_docs.py).
"""

from __future__ import annotations

from planner.rules.base import Rule, RuleContext
from planner.rules.se101_unbounded_group_aggregation import RULE as SE101
from planner.rules.se102_unbounded_regular_join import RULE as SE102

RULES: tuple[Rule, ...] = (SE101, SE102)

BY_CODE = {r.code: r for r in RULES}

__all__ = ["BY_CODE", "RULES", "Rule", "RuleContext"]
