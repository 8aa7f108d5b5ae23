"""docs/dialect.md's function table is the one the suite's data gives (no Spark, no Flink)."""

from __future__ import annotations

from planner.analysis.check.functions import REFUSED
from planner.functions import BUILTIN_FUNCTIONS
from tests.functions.cases import not_compared
from tests.functions.report import DOC, section, with_section


def test_the_docs_table_is_in_step_with_the_suite() -> None:
    doc = DOC.read_text()
    assert with_section(doc) == doc, "run: python -m tests.functions.report --write"
    assert section() in doc


def test_every_name_the_suite_lists_is_an_accepted_function() -> None:
    assert set(not_compared()) <= BUILTIN_FUNCTIONS
    assert set(REFUSED) <= BUILTIN_FUNCTIONS
