"""The dialect parses what Flink 2.3's parser parses, and nothing else: each kind of statement
Flink rejects gets a positioned E001 here, with the token it is about (the differential harness
over the whole corpus is tests/parser_fidelity/)."""

from __future__ import annotations

import pytest

from planner.dialect import Flink
from planner.errors import SqlErrors
from planner.fmt import format_sql
from planner.statements.script import parse_script


def error_of(sql: str) -> tuple[int, str]:
    """(column, message) of the one error of a one-line statement."""
    script = parse_script(sql)
    assert script.errors, f"parses, but Flink rejects it: {sql}"
    err = script.errors[0]
    assert err.line == 1 and err.code == "E001"
    return err.column, err.message


def flat(sql: str) -> str:
    script = parse_script(sql)
    assert not script.errors, script.errors[0].render()
    (stmt,) = script.statements
    return stmt.tree.sql(dialect=Flink)


@pytest.mark.parametrize(
    ("sql", "column", "message"),
    [
        ("SELECT a,, b FROM t", 10, "Unexpected `,`: an empty item in the select list"),
        ("SELECT , a FROM t", 8, "Unexpected `,`: an empty item in the select list"),
        ("SELECT a, FROM t", 9, "Unexpected `,`: an empty item in the select list"),
        ("SELECT a FROM t,", 16, "Unexpected `,`: an empty item in the FROM clause"),
        ("SELECT a FROM t, WHERE a > 1", 16, "Unexpected `,`: an empty item in the FROM clause"),
        ("SELECT f(a, ) FROM t", 11, "Unexpected `,`: an empty item"),
        ("INSERT INTO t (a, , b) SELECT 1, 2", 19, "Unexpected `,`: an empty item"),
        ("INSERT INTO t VALUES (1, )", 24, "Unexpected `,`: an empty item"),
        ("ALTER TABLE t DROP (a, , b)", 24, "Unexpected `,`: an empty item"),
        ("CREATE TABLE t (a INT) WITH ('k' = 'v', , 'l' = 'w')", 41, "Unexpected `,`: an empty item"),
        ("SELECT * FROM t GROUP BY a, ", 27, "Unexpected `,`: an empty item"),
    ],
)
def test_an_empty_item_in_a_comma_list(sql, column, message):
    col, said = error_of(sql)
    assert col == column and said.startswith(message)


@pytest.mark.parametrize(
    ("sql", "column"),
    [("db1", 1), ("SELEC x", 1), ("'k' = 'v'", 1), ("Orders DESC", 1), ("(1)", 1)],
)
def test_a_bare_expression_is_not_a_statement(sql, column):
    col, message = error_of(sql)
    assert col == column and "does not start a statement" in message


def test_a_lone_end_needs_its_statement_set():
    assert error_of("END") == (1, "`END` without `BEGIN STATEMENT SET;` before it")


@pytest.mark.parametrize(
    ("sql", "column", "words"),
    [
        ("RESET k", 7, "quoted string, found `k`"),
        ("RESET pipeline.name", 7, "quoted string, found `pipeline`"),
        ("SET k = 'v'", 5, "quoted string, found `k`"),
        ("SET 'k' = v", 11, "quoted string, found `v`"),
        ("SET 'k' = true", 11, "quoted string, found `true`"),
        ("SET = 'v'", 5, "quoted string, found `=`"),
        ("SET 'k' = = 'v'", 11, "quoted string, found `=`"),
        ("SET SET 'k' = 'v'", 5, "quoted string, found `SET`"),
        ("SET 'k'", 8, "Expected '='"),
        ("SET 'k' =", 10, "quoted string"),
        ("CREATE TABLE t (a INT) WITH (connector = 'x')", 30, "quoted string, found `connector`"),
        ("CREATE TABLE t (a INT) WITH ('n' = 1)", 36, "quoted string, found `1`"),
    ],
)
def test_set_reset_and_options_take_quoted_strings(sql, column, words):
    col, message = error_of(sql)
    assert col == column and words in message


@pytest.mark.parametrize(
    ("sql", "printed"),
    [
        ("SET", "SET"),
        ("RESET", "RESET"),
        ("SET 'a.b' = 'c'", "SET 'a.b' = 'c'"),
        ("RESET 'a.b'", "RESET 'a.b'"),
        # adjacent string literals are one literal (standard SQL; Flink too)
        ("SET 'pipeline' '.name' = 'a' 'b'", "SET 'pipeline.name' = 'ab'"),
        ("RESET 'a' 'b'", "RESET 'ab'"),
        ("ALTER TABLE t SET ('k' = '2' '2')", "ALTER TABLE t SET ('k' = '22')"),
        ("SELECT 'a' 'b' FROM t", "SELECT 'ab' FROM t"),
        ("SELECT a FROM t WHERE a LIKE 'x' 'y'", "SELECT a FROM t WHERE a LIKE 'xy'"),
    ],
)
def test_what_flink_accepts_of_set_reset_and_strings(sql, printed):
    assert flat(sql) == printed


@pytest.mark.parametrize(
    ("sql", "column"),
    # Flink takes one quoted string here, not a continued one
    [("SHOW TABLES LIKE 'a' 'b'", 22), ("CREATE VIEW v COMMENT 'a' 'b' AS SELECT 1", 27)],
)
def test_a_continued_string_only_where_flink_takes_one(sql, column):
    assert error_of(sql)[0] == column


@pytest.mark.parametrize(
    ("sql", "column", "message"),
    [
        ("SELECT FROM t", 8, "Expected the select list after SELECT, found `FROM`"),
        ("SELECT", 7, "Expected the select list after SELECT at the end of the statement"),
        ("SELECT a FROM t UNION SELECT", 29, "Expected the select list after SELECT"),
        ("SELECT a FROM t WHERE a IN (SELECT)", 35, "Expected the select list after SELECT, found `)`"),
        ("SELECT * FROM FROM t", 15, "Unexpected `FROM`: Flink has no FROM-first queries"),
        ("FROM t", 1, "Unexpected `FROM`: Flink has no FROM-first queries"),
    ],
)
def test_a_query_needs_its_select_list(sql, column, message):
    col, said = error_of(sql)
    assert col == column and said.startswith(message)


def test_fmt_refuses_what_flink_rejects():
    with pytest.raises(SqlErrors):
        format_sql("SELECT a,, b FROM t;\n")
    assert format_sql("SET 'a' 'b' = 'c';\n") == "SET 'ab' = 'c';\n"


@pytest.mark.parametrize(
    ("sql", "column", "word"),
    [
        ("SELECT value FROM t", 8, "value"),
        ("SELECT COUNT", 8, "COUNT"),
        ("SELECT COUNT(*) AS views FROM t", 20, "views"),
        ("CREATE TABLE out (k STRING) WITH ('connector' = 'print')", 14, "out"),
        ("SELECT t.value FROM t", 10, "value"),
        ("INSERT INTO t PARTITION (date = '2019-8-30') SELECT 1", 26, "date"),
        ("SELECT * FROM t AS `order` JOIN u AS timestamp ON TRUE", 38, "timestamp"),
    ],
)
def test_a_reserved_word_is_a_name_only_quoted(sql, column, word):
    assert error_of(sql) == (column, f"`{word}` is a reserved word in Flink SQL; quote it: `{word}`")
    quoted = sql[: column - 1] + f"`{word}`" + sql[column - 1 + len(word) :]
    if word != "COUNT":  # `SELECT COUNT` quoted is a column named COUNT
        flat(quoted)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT user, current_user, LOCALTIMESTAMP, CURRENT_DATE FROM t",  # functions without ()
        "SELECT TIMESTAMPDIFF(DAY, a, b) FROM t",
        "SELECT `value`, `count` FROM t AS `out`",
        "SELECT B.dateTime FROM bids AS B",  # DATETIME: reserved since 2.3, accepted on purpose (Nexmark q23)
    ],
)
def test_what_flink_reads_as_a_keyword_or_we_accept_on_purpose(sql):
    flat(sql)


@pytest.mark.parametrize(
    ("sql", "column", "message"),
    [
        ("SELECT * FROM t GROUP BY", 25, "Expected an expression after GROUP BY at the end of the statement"),
        ("SELECT * FROM t GROUP BY ORDER BY a", 26, "Expected an expression after GROUP BY, found `ORDER BY`"),
        ("SHOW CATALOGS LIKE", 19, "Expected a pattern, a quoted string, after LIKE at the end of the statement"),
        ("SHOW COLUMNS FROM t NOT LIKE", 29, "Expected a pattern, a quoted string, after LIKE at the end of the statement"),
    ],
)
def test_a_statement_that_stops_mid_clause(sql, column, message):
    assert error_of(sql) == (column, message)
