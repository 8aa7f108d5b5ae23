"""The diagnostics, one rule per module; ``RULES`` is the registry the linter and EXPLAIN run.

Every rule has a documentation page ``docs/rules/<CODE>.md`` with a bad and a good example, and
tests run the rule on both (tests/planner/test_rules_docs.py).
"""

from __future__ import annotations

from planner.rules.base import Rule, RuleContext
from planner.rules.se101_unbounded_group_aggregation import RULE as SE101
from planner.rules.se102_unbounded_regular_join import RULE as SE102
from planner.rules.se103_unbounded_distinct import RULE as SE103
from planner.rules.se104_unbounded_deduplication import RULE as SE104
from planner.rules.se105_unbounded_top_n import RULE as SE105
from planner.rules.se106_unbounded_over import RULE as SE106
from planner.rules.se107_no_watermark import RULE as SE107
from planner.rules.se108_ttl_changes_results import RULE as SE108
from planner.rules.se109_watermark_delay_dominates import RULE as SE109
from planner.rules.se110_unbounded_temporal_join import RULE as SE110
from planner.rules.se111_unbounded_match import RULE as SE111
from planner.rules.se201_processing_time import RULE as SE201
from planner.rules.se301_spark_unsupported import RULE as SE301
from planner.rules.se302_changelog_operator import RULE as SE302

RULES: tuple[Rule, ...] = (SE101, SE102, SE103, SE104, SE105, SE106, SE107, SE108, SE109, SE110, SE111, SE201, SE301, SE302)

BY_CODE = {r.code: r for r in RULES}

__all__ = ["BY_CODE", "RULES", "Rule", "RuleContext"]
