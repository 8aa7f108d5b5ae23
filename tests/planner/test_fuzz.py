"""Fuzz: mutated statements from the fixture corpora each give a tree or a positioned error,
never an exception of another kind, a hang, or an internal-error code."""

from __future__ import annotations

import random

import pytest

from planner.errors import SqlError
from planner.source import SourceText
from planner.statements.script import parse_script, tokenize
from tests.fixtures.loader import doc_blocks, nexmark_files

N_MUTANTS = 10_000
INSERTS = ["(", ")", ",", ";", "'", "`", "SELECT", "FROM", "TABLE", "WATERMARK", "AS", "=>",
           "INTERVAL", "/*+", "*/", "${", "}", "--", "\n", "<", ">", "ROW", "BEGIN", "END", "."]


def _seed_statements() -> list[str]:
    texts = [p.read_text() for p in nexmark_files()]
    texts += [b.text for b in doc_blocks()]
    out = []
    for text in texts:
        for stmt in parse_script(text).statements:
            out.append(stmt.text)
    return out


def _mutate(rng: random.Random, text: str) -> str:
    try:
        tokens = tokenize(SourceText(text))
    except SqlError:
        tokens = []
    op = rng.randrange(6)
    if op < 3 and tokens:
        tok = rng.choice(tokens)
        start, end = tok.start, tok.end + 1
        if op == 0:  # delete a token
            return text[:start] + text[end:]
        if op == 1:  # duplicate a token
            return text[:end] + " " + text[start:end] + text[end:]
        return text[:start] + rng.choice(INSERTS) + text[end:]  # replace a token
    pos = rng.randrange(len(text) + 1)
    if op == 3:  # insert a token
        return text[:pos] + " " + rng.choice(INSERTS) + " " + text[pos:]
    if op == 4:  # truncate
        return text[:pos]
    a, b = sorted((rng.randrange(len(text) + 1), rng.randrange(len(text) + 1)))
    return text[:a] + text[b:] + text[a:b]  # move a slice


@pytest.mark.timeout(300)
def test_ten_thousand_mutants_give_tree_or_positioned_error():
    rng = random.Random(20261122)
    seeds = _seed_statements()
    assert len(seeds) > 200
    outcomes = {"tree": 0, "error": 0}
    for i in range(N_MUTANTS):
        text = rng.choice(seeds)
        for _ in range(rng.randrange(1, 4)):
            text = _mutate(rng, text)
        script = parse_script(text, f"mutant{i}.sql")
        for err in script.errors:
            assert isinstance(err, SqlError)
            assert err.code != "E999", f"internal parser error on:\n{text}"
            assert err.line >= 1 and err.column >= 1
            assert 0 <= err.span.start <= len(text)
            assert err.render().startswith(f"mutant{i}.sql:{err.line}:{err.column}: error: ")
        outcomes["tree" if not script.errors else "error"] += 1
    assert outcomes["tree"] > 500 and outcomes["error"] > 3000, outcomes
