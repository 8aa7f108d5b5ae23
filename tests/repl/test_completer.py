"""Context-aware completion over a real catalog, and Tab in the real prompt."""

from __future__ import annotations

import pytest
from prompt_toolkit.document import Document

from planner.statements.session import KNOWN_SETTINGS
from repl.completer import SqlCompleter, context_at, match_rank, tables_in_statement
from tests.repl.shell_driver import CTRL_C, TAB

DDL = """
CREATE TABLE bids (ts TIMESTAMP_LTZ(3), item STRING, price BIGINT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = '/tmp/x', 'format' = 'json');
CREATE TABLE people (id BIGINT, name STRING) WITH ('connector' = 'datagen');
CREATE VIEW pricey AS SELECT item, price * 2 AS doubled FROM bids;
"""


@pytest.fixture
def completer(engine):
    from repl.buffer import statements

    for stmt in statements(DDL):
        engine.plan(stmt)
    return SqlCompleter(engine.catalog, lambda: KNOWN_SETTINGS, lambda: ["4f1c2a9e0b11", "77aa00bb11cc"])


def complete(completer, text: str, cursor: int | None = None) -> list[str]:
    doc = Document(text, len(text) if cursor is None else cursor)
    return [c.text for c in completer.get_completions(doc, None)]


def test_statement_keywords_at_the_start_in_the_users_case(completer):
    assert complete(completer, "")[:3] == ["SELECT", "INSERT INTO", "CREATE TABLE"]
    assert complete(completer, "sel") == ["select"]
    assert complete(completer, "SHOW ")[:2] == ["TABLES", "VIEWS"]


def test_tables_and_views_after_from_join_into(completer):
    assert complete(completer, "SELECT * FROM ")[:3] == ["bids", "people", "pricey"]
    assert complete(completer, "SELECT * FROM bids JOIN p")[:2] == ["people", "pricey"]
    assert complete(completer, "INSERT INTO pe") == ["people"]
    assert complete(completer, "DESCRIBE ")[:1] == ["bids"]
    assert complete(completer, "SELECT * FROM TABLE(") == ["TUMBLE", "HOP", "CUMULATE", "SESSION"]


def test_columns_of_the_tables_in_from_even_after_the_cursor(completer):
    text = "SELECT  FROM bids"
    assert complete(completer, text, 7)[:3] == ["ts", "item", "price"]
    assert complete(completer, "SELECT pr FROM bids", 9)[0] == "price"
    assert complete(completer, "SELECT b. FROM bids b", 9) == ["ts", "item", "price"]
    assert complete(completer, "SELECT x.na FROM bids AS x JOIN people p ON x.item = p.na", 11) == []
    assert complete(completer, "SELECT p.na FROM bids AS x JOIN people p ON x.item = p.name", 11) == ["name"]
    # a view's columns come from its query
    assert complete(completer, "SELECT d FROM pricey", 8)[0] == "doubled"
    # windows add their columns
    tvf = "SELECT window_ FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '1' SECOND))"
    assert set(complete(completer, tvf, 14)) == {"window_start", "window_end", "window_time"}


def test_functions_and_fuzzy_matching(completer):
    out = complete(completer, "SELECT date_f")
    assert out[0] == "date_format"
    assert "count" in complete(completer, "SELECT cnt")  # a subsequence still matches
    assert match_rank("mode", "sql-client.execution.result-mode") == (1, 4)  # the start of a word part
    assert match_rank("xyz", "count") is None


def test_connector_option_keys_and_values_inside_with(completer):
    base = "CREATE TABLE t (a INT, b STRING) WITH ("
    assert complete(completer, base)[0] == "'connector'"
    assert set(complete(completer, base + "'connector' = '")) == {"blackhole'", "datagen'", "filesystem'", "kafka'", "nexmark'", "print'", "upsert-kafka'"}
    fs = base + "'connector' = 'filesystem', "
    keys = complete(completer, fs + "'")
    assert "path'" in keys and "format'" in keys and "source.monitor-interval'" in keys
    assert "rows-per-second'" not in keys  # a datagen option
    assert set(complete(completer, fs + "'format' = '")) == {"csv'", "json'", "parquet'"}
    assert complete(completer, fs + "'format' = 'csv', 'csv.field") == ["csv.field-delimiter'"]
    assert set(complete(completer, fs + "'errors.mode' = '")) == {"dead-letter'", "fail'", "null-fields'", "skip'"}
    # '#' stands for a declared column
    gen = base + "'connector' = 'datagen', 'fields.b.k"
    assert complete(completer, gen) == ["fields.b.kind'"]


def test_set_keys_values_and_job_ids(completer):
    assert "'sql-client.execution.result-mode'" in complete(completer, "SET ")
    assert complete(completer, "SET 'result-m") == ["sql-client.execution.result-mode'"]
    assert complete(completer, "SET 'sql-client.execution.result-mode' = '") == ["table'", "changelog'", "tableau'"]
    assert complete(completer, "SET 'sql-client.state-warnings' = 'w") == ["warn'"]
    assert "table.exec.state.ttl'" in complete(completer, "RESET '")
    assert complete(completer, "DESCRIBE JOB '4f") == ["4f1c2a9e0b11'"]
    assert complete(completer, "STOP JOB ") == ["'4f1c2a9e0b11'", "'77aa00bb11cc'"]


def test_contexts_are_read_with_our_tokenizer():
    assert context_at("SELECT ';' FROM ", 16).kinds >= {"table"}  # the `;` is inside a string
    assert context_at("SELECT 1; SELECT * FROM bids WHERE ", 35).kinds >= {"column", "function"}
    tables, windowed = tables_in_statement("SELECT 1; SELECT * FROM a x JOIN b ON x.k = b.k; SELECT * FROM c", 20)
    assert tables == {"a": "a", "x": "a", "b": "b"} and not windowed
    # a statement that parses also gives comma joins and subqueries; a CTE is not a table
    tables, _w = tables_in_statement("WITH c AS (SELECT * FROM base) SELECT * FROM c, other o WHERE o.k IN (SELECT k FROM ks)", 5)
    assert tables == {"base": "base", "other": "other", "o": "other", "ks": "ks"}


def test_tab_completes_in_the_real_prompt(engine, shell_of):
    sh = shell_of(engine)
    sh.run(" ".join(DDL.split()))  # one line: one Enter, one prompt
    sh.send("SHOW TAB" + TAB)
    sh.wait_until(lambda: sh.buffer_text() == "SHOW TABLES", what="SHOW TABLES completed")
    sh.send(CTRL_C)
    sh.wait_until(lambda: sh.buffer_text() == "", what="a cleared line")
    sh.send("describe pe" + TAB)
    sh.wait_until(lambda: sh.buffer_text() == "describe people", what="the table completed")
    assert "| name   | STRING" in sh.run(";")
    sh.send("SELECT na FROM people")
    sh.wait_until(lambda: sh.buffer_text() == "SELECT na FROM people", what="typed text")
    sh.send("\x1b[D" * len(" FROM people") + TAB)  # the cursor back after `na`
    sh.wait_until(lambda: sh.buffer_text() == "SELECT name FROM people", what="the column completed")
    sh.send(CTRL_C)
