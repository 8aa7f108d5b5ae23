"""Flink's legacy table options ('connector.type' = 'filesystem', 'connector.path', 'format.type' =
'csv', 'format.*'), as Nexmark's q13 declares its side table: stored as the options of today that
mean the same, and what has no equivalent refused by lint at the pair, with the reason."""

from __future__ import annotations

import sqlglot

from catalog.legacy_options import modern
from planner.dialect import Flink
from planner.lint import lint_paths
from planner.statements.ddl import table_from_create

Q13_SIDE = """CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector.type' = 'filesystem',
  'connector.path' = 'file:///data/side_input.txt',
  'format.type' = 'csv'
)"""


def _table(sql: str):
    return table_from_create(sqlglot.parse_one(sql, read=Flink))


def test_q13_side_table_is_stored_as_todays_options():
    table = _table(Q13_SIDE)
    assert table.options == {
        "connector": "filesystem",
        "path": "file:///data/side_input.txt",
        "format": "csv",
        # the legacy CSV format has no quote character unless one is given
        "csv.disable-quote-character": "true",
    }
    assert table.connector == "filesystem"


def test_each_legacy_csv_option_that_has_an_equivalent():
    options = {
        "connector.type": "filesystem", "connector.property-version": "1", "connector.path": "/d",
        "format.type": "csv", "format.property-version": "1", "format.field-delimiter": "|",
        "format.quote-character": "'", "format.comment-prefix": "#", "format.ignore-first-line": "false",
        "format.ignore-parse-errors": "true", "format.line-delimiter": "\n", "format.derive-schema": "false",
        "format.fields.0.name": "a", "format.fields.0.type": "BIGINT",
        "format.fields.1.name": "b", "format.fields.1.data-type": "STRING", "update-mode": "append",
    }
    assert modern(options, ["a", "b"]) == {
        "connector": "filesystem", "path": "/d", "format": "csv", "csv.field-delimiter": "|",
        "csv.quote-character": "'", "csv.allow-comments": "true", "csv.ignore-parse-errors": "true",
    }


def test_options_of_today_are_left_alone():
    options = {"connector": "filesystem", "path": "/d", "format": "csv"}
    assert modern(options, ["a"]) == options


def test_what_has_no_equivalent_stays_and_is_refused_at_its_pair(tmp_path):
    path = tmp_path / "legacy.sql"
    path.write_text(
        "CREATE TABLE t (a BIGINT, b STRING) WITH (\n"
        "  'connector.type' = 'filesystem',\n"
        "  'connector.path' = '/d',\n"
        "  'format.type' = 'csv',\n"
        "  'format.ignore-first-line' = 'true',\n"
        "  'format.comment-prefix' = '//',\n"
        "  'format.fields.0.name' = 'b',\n"
        "  'format.fields.1.name' = 'a',\n"
        "  'update-mode' = 'retract',\n"
        "  'format.ignore-parse-errors' = 'maybe'\n"
        ");\n"
        "CREATE TABLE k (a BIGINT) WITH ('connector.type' = 'kafka', 'connector.topic' = 't', 'format.type' = 'json');\n"
        "CREATE TABLE m (a BIGINT) WITH ('connector' = 'filesystem', 'connector.path' = '/d', 'format' = 'csv');\n"
        "CREATE TABLE j (a BIGINT) WITH ('connector.type' = 'filesystem', 'connector.path' = '/d', 'format.type' = 'json');\n"
    )
    diagnostics = lint_paths([path]).diagnostics
    found = {(d.line, d.column): (d.code, d.message, d.hint) for d in diagnostics}
    assert all(code == "E003" for code, _, _ in found.values()), found
    assert "a header line cannot be skipped" in found[(5, 3)][1]
    assert "only '#' is read" in found[(6, 3)][1]
    assert "must name the table's physical columns in order" in found[(7, 3)][1]
    assert "must name the table's physical columns in order" in found[(8, 3)][1]
    assert "as 'append' (a legacy filesystem table is append-only)" in found[(9, 3)][1]
    # a value refused by today's option is positioned at the legacy pair that set it
    assert found[(10, 3)][1].startswith("Option 'csv.ignore-parse-errors'")
    # Flink's legacy Kafka options are not read: the table is declared with today's
    assert found[(12, 33)] == ("E003", "Option 'connector.type': of Flink's legacy connectors only 'filesystem' (with "
                               "'format.type' = 'csv') is read, not 'kafka'; declare the table with today's options "
                               "('connector' = ...).", "did you mean 'connector'?")
    # a legacy key among today's options: its spelling of today is the hint
    assert (13, 61, "Option 'connector.path' is Flink's legacy spelling of 'path'; Flink's legacy options are "
            "read only in a CREATE TABLE that declares 'connector.type' = 'filesystem' and 'format.type' = 'csv'.",
            "did you mean 'path'?") in [(d.line, d.column, d.message, d.hint) for d in diagnostics]
    # the legacy filesystem connector of another format than CSV: Flink 2.3 has none
    assert any(d.line == 14 and d.column == 91 and "of Flink's legacy formats only 'csv' is read" in d.message
               for d in diagnostics), diagnostics
    assert [d.line for d in diagnostics if d.line < 12] == [5, 6, 7, 8, 9, 10], diagnostics


def test_q13_as_published_lints_clean_of_option_errors(tmp_path):
    path = tmp_path / "q13.sql"
    path.write_text(Q13_SIDE + ";\nSELECT key, `value` FROM side_input;\n")
    assert [d for d in lint_paths([path]).diagnostics if d.code == "E003"] == []
