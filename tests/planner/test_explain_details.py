"""EXPLAIN's detail keywords, as in Flink: each adds its part to the plain plan tree, and several
may be combined. Without a detail EXPLAIN shows everything."""

from __future__ import annotations

import json
import re

from catalog import Catalog
from planner.statements.script import parse_script
from planner.statements.session import Kind, PlannerSession

DDL = """CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""
QUERY = "SELECT user_id, COUNT(*) AS n FROM clicks GROUP BY user_id"


def explain(details: str) -> str:
    session = PlannerSession(Catalog.in_memory())
    *_, outcome = [session.execute(s) for s in parse_script(f"{DDL}EXPLAIN {details} {QUERY};").statements]
    assert outcome.kind == Kind.EXPLAIN
    return outcome.text


def unplaced(text: str) -> str:
    """Without the line:column of diagnostics (the statement's text differs with its details)."""
    return re.sub(r"^\d+:\d+ ", "", text, flags=re.M)


def test_plain_explain_shows_plan_changelog_state_and_advice():
    text = explain("")
    assert "== Plan ==" in text and "changelog: upsert[user_id]" in text
    assert "state: UNBOUNDED" in text and "== State ==" in text and "== Advice ==" in text
    assert unplaced(explain("PLAN FOR")) == unplaced(text)


def test_changelog_mode_shows_the_plan_with_each_nodes_changelog_mode_only():
    text = explain("CHANGELOG_MODE")
    assert text.count("changelog: ") == 3  # Calc, GroupAggregate, Scan
    assert "changelog: upsert[user_id]" in text and "changelog: insert-only" in text
    assert "state:" not in text and "== State ==" not in text and "== Advice ==" not in text


def test_estimated_cost_shows_the_state_estimates():
    text = explain("ESTIMATED_COST")
    assert "state: UNBOUNDED" in text and "== State ==" in text and "Total: " in text
    assert "assuming datagen 'rows-per-second'" in text
    assert "changelog:" not in text and "== Advice ==" not in text


def test_plan_advice_shows_the_diagnostics_with_hints_and_rewrites():
    text = explain("PLAN_ADVICE")
    assert "== Plan ==" in text and "== Advice ==" in text
    assert "WARNING SE101" in text and "hint: " in text and "rewrite:" in text
    assert "changelog:" not in text and "== State ==" not in text


def test_json_execution_plan_alone_is_the_json_document():
    doc = json.loads(explain("JSON_EXECUTION_PLAN"))
    assert [n["kind"] for n in doc["nodes"]] == ["Calc", "GroupAggregate", "Scan"]
    assert doc["verdict"] == "unbounded" and doc["diagnostics"][0]["code"] == "SE101"


def test_details_combine():
    text = explain("CHANGELOG_MODE, ESTIMATED_COST")
    assert "changelog: upsert[user_id]" in text and "== State ==" in text and "== Advice ==" not in text
    everything = explain("ESTIMATED_COST, CHANGELOG_MODE, PLAN_ADVICE, JSON_EXECUTION_PLAN")
    text, _, rest = everything.partition("== JSON Execution Plan ==\n")
    assert unplaced(text) == unplaced(explain("")) + "\n"
    assert json.loads(rest)["verdict"] == "unbounded"
