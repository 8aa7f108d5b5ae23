"""Our dialect against Apache Flink's own SQL parser: what Flink accepts must parse here, what it
rejects must get a positioned error here. The labels were made once with Flink (make_labels.py)
and are checked in, so this runs without Flink or Spark, in about a second.

Where the dialect is not yet as strict (or as broad) as Flink, the statement is listed in
known_differences.json with a reason. That list must be exactly the current disagreements: a new
one fails (a regression), and so does a listed one that now agrees (remove it: the list only shrinks).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.parser_fidelity import report
from tests.parser_fidelity.corpus import CORPUS, MUST_REJECT, load

UPDATE = "python -m tests.parser_fidelity.report --write-known"


@pytest.fixture(scope="module")
def verdicts() -> tuple[report.Verdict, ...]:
    return report.verdicts()


def _listing(vs: list[report.Verdict], said) -> str:
    return "\n".join(f"  {v.id}: {' '.join(v.sql.split())[:120]}\n      {said(v)}" for v in vs[:40])


def test_labels_are_for_this_corpus():
    rows = load(CORPUS)
    labels = report.load_labels()
    assert [r["id"] for r in rows] == list(labels), "labels.jsonl is stale: rerun make_labels.py (see README.md)"
    meta = json.loads(report.META.read_text())
    assert meta["corpus_sha256"] == hashlib.sha256(CORPUS.read_bytes()).hexdigest(), "corpus changed since labelling"
    assert meta["flink_version"].startswith("2.3")
    assert len(rows) >= 1_500


def test_flink_rejects_the_must_reject_cases():
    labels = report.load_labels()
    accepted = [name for name in MUST_REJECT if labels[f"case/{name}"]["accepted"]]
    assert not accepted, f"Flink's parser accepts cases listed as invalid: {accepted}"


def test_what_flink_accepts_parses_here(verdicts):
    known = report.load_known()
    failures = [v for v in verdicts if v.flink_accepts and not v.we_accept and v.id not in known]
    assert not failures, f"{len(failures)} statement(s) Flink's parser accepts fail here:\n" + _listing(
        failures, lambda v: f"we say: {v.our_message} (line {v.our_line}, column {v.our_column})"
    )


def test_what_flink_rejects_gets_a_positioned_error_here(verdicts):
    known = report.load_known()
    failures = [v for v in verdicts if not v.flink_accepts and not v.agrees and v.id not in known]
    assert not failures, f"{len(failures)} statement(s) Flink's parser rejects are accepted here (or lack a position):\n" + _listing(
        failures, lambda v: f"Flink: {v.flink_message}"
    )


def test_known_differences_are_exactly_the_current_ones(verdicts):
    current = report.disagreements(verdicts)
    known = report.load_known()
    fixed = sorted(set(known) - set(current))
    assert not fixed, f"{len(fixed)} listed difference(s) now agree with Flink; drop them with `{UPDATE}`:\n  " + "\n  ".join(fixed[:40])
    unlisted = sorted(set(current) - set(known))
    assert not unlisted, f"{len(unlisted)} new difference(s): fix them (see the tests above)"


def test_agreement(verdicts):
    """The figures, for the record (`python -m tests.parser_fidelity.report` explains them)."""
    n = len(verdicts)
    agree = sum(v.agrees for v in verdicts)
    over = sum(v.we_accept and not v.flink_accepts for v in verdicts)
    under = sum(v.flink_accepts and not v.we_accept for v in verdicts)
    print(f"parser fidelity: {agree}/{n} agree with Flink ({100 * agree / n:.1f}%); we accept {over} it rejects, reject {under} it accepts")
    assert n - agree == len(report.load_known())
    # the real statements (docs, Nexmark, ours) are the ones users write: they must stay close
    base = [v for v in verdicts if v.kind == "base"]
    assert sum(v.agrees for v in base) / len(base) >= 0.95
