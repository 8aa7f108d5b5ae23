"""Every rule has a page docs/rules/<CODE>.md with a bad and a good example: the rule fires on
the bad one and not on the good one, each run whole (DDL, SET, query) through the planner."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from catalog import Catalog
from planner.rules import RULES
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"
PAGE = re.compile(r"^(SE\d{3})\.md$")


def _pages() -> dict[str, Path]:
    return {m.group(1): p for p in sorted(DOCS.glob("*.md")) if (m := PAGE.match(p.name))}


def _example(text: str, section: str) -> str:
    m = re.search(rf"^## {section}\s*\n+```sql\n(.*?)```", text, re.S | re.M)
    assert m, f"no ## {section} ```sql block"
    return m.group(1)


def run_codes(sql: str, name: str) -> list[str]:
    """Codes of all findings of every analysed statement; any SQL error fails the test."""
    script = parse_script(sql, name)
    assert not script.errors, [str(e) for e in script.errors]
    session = PlannerSession(Catalog.in_memory())
    codes: list[str] = []
    analysed = 0
    for stmt in script.statements:
        outcome = session.execute(stmt)
        if outcome.analysis is not None:
            analysed += 1
            codes.extend(d.code for d in outcome.analysis.diagnostics)
    assert analysed, "the example has no query to analyse"
    return codes


def test_every_rule_has_a_page_and_every_page_a_rule():
    codes = {r.code for r in RULES}
    assert set(_pages()) == codes
    index = (DOCS / "README.md").read_text()
    for code in codes:
        assert f"[{code}]({code}.md)" in index


@pytest.mark.parametrize("code", sorted(r.code for r in RULES))
def test_rule_fires_on_bad_and_not_on_good(code):
    text = _pages()[code].read_text()
    assert text.startswith(f"# {code}: ")
    for section in ("What it detects", "Why it matters", "How to fix"):
        assert f"## {section}" in text
    bad = run_codes(_example(text, "Bad"), f"{code}-bad.sql")
    good = run_codes(_example(text, "Good"), f"{code}-good.sql")
    assert code in bad, f"{code} does not fire on its bad example: {bad}"
    assert code not in good, f"{code} fires on its good example: {good}"


@pytest.mark.parametrize("code", sorted(r.code for r in RULES))
def test_page_states_the_rules_severity_and_category(code):
    rule = next(r for r in RULES if r.code == code)
    text = _pages()[code].read_text()
    assert f"Severity: {rule.severity.value}" in text
    assert f"Category: `{rule.category.value}`" in text
