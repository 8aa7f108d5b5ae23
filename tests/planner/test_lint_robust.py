"""One bad statement or file never hides the others: a defect of ours in one statement is an
E999 finding there, a file that is not UTF-8 is one E005 finding, statements nested as deep as
Flink plans them are checked like any other, and JSON and SARIF reports are always complete."""

from __future__ import annotations

import json

import pytest

import planner.statements.session as session_module
from planner.lint import LintConfig, Linter, lint_paths, render

DDL = "CREATE TABLE t (a INT, b INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen');\n"
UNBOUNDED = "SELECT a, COUNT(*) FROM t GROUP BY a;\n"


def test_an_internal_error_in_one_statement_is_a_finding_there_and_the_rest_is_checked(tmp_path, monkeypatch):
    real = session_module.PlannerSession._dispatch

    def defect(self, stmt, tree):
        if "b + 0" in stmt.text:
            raise KeyError("boom")
        return real(self, stmt, tree)

    monkeypatch.setattr(session_module.PlannerSession, "_dispatch", defect)
    first = tmp_path / "a.sql"
    first.write_text(DDL + "SELECT b + 0 FROM t;\n" + UNBOUNDED)
    second = tmp_path / "b.sql"
    second.write_text(DDL + UNBOUNDED)
    result = lint_paths([first, second])
    found = [(d.path, d.line, d.column, d.code) for d in result.diagnostics]
    assert found == [(str(first), 2, 1, "E999"), (str(first), 3, 36, "SE101"), (str(second), 2, 36, "SE101")]
    internal = result.diagnostics[0]
    assert internal.message == "Internal error while checking this statement: KeyError: 'boom'"
    assert internal.category.value == "internal"
    assert result.exit_code == 2
    for fmt in ("json", "sarif"):
        doc = json.loads(render(result, fmt))  # complete documents
        assert "E999" in json.dumps(doc)


def test_a_file_that_is_not_utf8_is_one_positioned_finding(tmp_path):
    bad = tmp_path / "bad.sql"
    bad.write_bytes(b"SELECT 1;\nSELECT 'caf\xe9' FROM t;\n")
    good = tmp_path / "good.sql"
    good.write_text(DDL + UNBOUNDED)
    result = lint_paths([bad, good])
    assert [(d.path, d.line, d.column, d.code) for d in result.diagnostics] == [
        (str(bad), 2, 12, "E005"),
        (str(good), 2, 36, "SE101"),
    ]
    assert "byte 0xe9" in result.diagnostics[0].message
    assert json.loads(render(result, "json"))[0]["code"] == "E005"


def test_an_init_file_that_is_not_utf8_is_a_finding_too(tmp_path):
    init = tmp_path / "init.sql"
    init.write_bytes(b"\xff" + DDL.encode())
    f = tmp_path / "q.sql"
    f.write_text(DDL + UNBOUNDED)
    result = Linter(LintConfig(init=[str(init)])).lint_files([f])
    assert [(d.path, d.code) for d in result.diagnostics] == [(str(init), "E005"), (str(f), "SE101")]


DEEP = {
    "a 1,000-term chain": "SELECT " + " + ".join(["a"] * 1000) + " FROM t",
    "a 1,000-term OR list": "SELECT a FROM t WHERE " + " OR ".join(f"a = {i}" for i in range(1000)),
    "300 UNION ALL branches": " UNION ALL ".join(["SELECT a FROM t"] * 300),
    "60 nested parentheses": "SELECT " + "(" * 60 + "a" + ")" * 60 + " FROM t",
    "60 nested CASEs": "SELECT " + "CASE WHEN a > 0 THEN " * 60 + "1" + " ELSE 0 END" * 60 + " FROM t",
    "120 nested subqueries": "SELECT a FROM " + "(SELECT a FROM " * 120 + "t" + ") x" * 120,
}


@pytest.mark.parametrize("sql", DEEP.values(), ids=DEEP.keys())
def test_deep_and_long_statements_are_checked_like_any_other(tmp_path, sql):
    f = tmp_path / "q.sql"
    f.write_text(DDL + sql + ";\n" + UNBOUNDED)
    result = lint_paths([f])
    assert [(d.line, d.code) for d in result.diagnostics] == [(3, "SE101")]  # the deep one binds: no finding
