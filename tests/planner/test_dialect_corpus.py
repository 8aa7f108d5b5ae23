"""Acceptance: the published Nexmark suite and the Flink documentation's examples parse without
an edit, and generate back to SQL that parses to the same tree."""

from __future__ import annotations

import re

import pytest

from planner.statements.script import parse_script
from tests.fixtures.loader import Block, doc_blocks, nexmark_files

# Examples that are wrong in Flink's documentation itself; each must give a positioned error.
DOCS_ERRATA = {
    "window-tvf.sql#8": "both named-argument SESSION(...) calls miss a ')'",
    "set-ops.sql#5": "`WHERE product EXISTS (` is not SQL",
    "alter.sql#2": "`CREATE TABLE MyTable ADD DISTRIBUTION` should be ALTER TABLE",
    "create.sql#7": "a trailing comma before ')'",
    "create.sql#16": "a trailing comma before ')'",
    "time_attributes.sql#5": "statements end in ')." ,
    "time_attributes.sql#7": "statements end in ').",
    "time_attributes.sql#8": "an option key with a space outside quotes",
    "hints.sql#5": "`JOIN t2 AS OF T.proctime` lacks FOR SYSTEM_TIME",
    # rejected by Flink 2.3's own parser (tests/parser_fidelity/labels.jsonl): the key must be quoted
    "sqlClient.sql#11": "RESET execution.state-recovery.path: Flink takes RESET 'key'",
    "sqlClient.sql#13": "RESET pipeline.name: Flink takes RESET 'key'",
}


def assert_round_trip(stmt) -> None:
    sql = stmt.sql()
    again = parse_script(sql)
    assert not again.errors, f"generated SQL does not parse:\n{sql}\n{again.errors[0]}"
    assert len(again.statements) == 1
    assert again.statements[0].tree == stmt.tree, f"tree changed through:\n{sql}"
    pretty = parse_script(stmt.sql(pretty=True))
    assert not pretty.errors and pretty.statements[0].tree == stmt.tree


@pytest.mark.parametrize("path", nexmark_files(), ids=lambda p: str(p.relative_to(p.parents[1])))
def test_nexmark_parses_unedited(path):
    script = parse_script(path.read_text(), str(path))
    assert not script.errors, script.errors[0].render()
    assert script.statements
    for stmt in script.statements:
        assert_round_trip(stmt)


def _checked_blocks() -> list[Block]:
    return [b for b in doc_blocks() if not b.unsplit]


@pytest.mark.parametrize("block", _checked_blocks(), ids=lambda b: b.id)
def test_flink_docs_examples_parse(block: Block):
    script = parse_script(block.text, block.id)
    if block.id in DOCS_ERRATA:
        assert script.errors, f"expected the documented erratum: {DOCS_ERRATA[block.id]}"
        err = script.errors[0]
        assert err.line >= 1 and err.column >= 1
        return
    errors = list(script.errors)
    if block.placeholder:
        errors = [e for e in errors if not _ELIDED.search(_statement_text_at(block.text, e))]
    assert not errors, errors[0].render()
    for stmt in script.statements:
        if block.placeholder and _ELIDED.search(stmt.text):
            continue
        assert_round_trip(stmt)


_ELIDED = re.compile(r"\.\s*\.\s*\.")


def _statement_text_at(text: str, err) -> str:
    # the text of the statement around an error: from the previous ';' to the next one
    start = text.rfind(";", 0, err.span.start) + 1
    end = text.find(";", err.span.start)
    return text[start : end if end >= 0 else len(text)]


def test_corpus_is_substantial():
    blocks = doc_blocks()
    assert len(nexmark_files()) >= 30
    assert len(blocks) >= 150
