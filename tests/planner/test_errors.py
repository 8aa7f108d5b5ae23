"""Syntax errors: file, line and column, the line with a caret, a hint for known mistakes."""

from __future__ import annotations

from planner.statements.script import parse_script


def first_error(text: str):
    script = parse_script(text, "q.sql")
    assert script.errors, "expected a syntax error"
    return script.errors[0]


def test_position_caret_and_rendering():
    err = first_error("SELECT a\nFROM t\nWHERE b = = 1;")
    assert (err.line, err.column) == (3, 11)
    text = err.render()
    assert text.splitlines()[0].startswith("q.sql:3:11: error:")
    assert "   3 | WHERE b = = 1;" in text
    assert text.splitlines()[2].endswith("^")


def test_spark_style_window_gets_the_tvf_hint():
    err = first_error("SELECT COUNT(*) FROM bids GROUP BY window(ts, '1 minute');")
    assert "TABLE(TUMBLE(TABLE" in err.hint


def test_missing_semicolon_is_pointed_out():
    err = first_error("CREATE TABLE t (a INT) WITH ('connector' = 'datagen')\nSELECT a FROM t;")
    assert (err.line, err.column) == (2, 1)
    assert "';' missing" in err.hint


def test_reserved_word_as_a_name():
    err = first_error("CREATE TABLE t (user STRING, ts TIMESTAMP(3));")
    assert "reserved word" in err.message and "`user`" in err.hint
    assert (err.line, err.column) == (1, 17)
    assert parse_script("CREATE TABLE t (`user` STRING);").ok


def test_unterminated_string_and_identifier():
    err = first_error("SELECT 'abc FROM t;")
    assert "Unterminated string" in err.message and err.column == 8
    err = first_error("SELECT `abc FROM t;")
    assert "Unterminated quoted identifier" in err.message


def test_errors_in_one_statement_do_not_hide_the_next():
    script = parse_script("SELECT FROM;\nSELECT 1;\nSELECT a b c FROM t;")
    assert len(script.statements) == 1 and len(script.errors) == 2
    assert [e.line for e in script.errors] == [1, 3]


def test_a_missing_closing_parenthesis_is_an_error_everywhere():
    """At the end of the statement the hint says a parenthesis is open; before another token the
    message names that token. The column is where the ``)`` was expected."""
    cases = [
        ("SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE);", "Expected ) at the end of the statement", 73),
        ("SELECT CAST(a AS INT FROM t;", "Expected ), found `FROM`", 22),
        ("SELECT EXTRACT(HOUR FROM ts;", "Expected ) at the end of the statement", 28),
        ("SELECT f(1;", "Expected ) at the end of the statement", 11),
    ]
    for sql, message, column in cases:
        err = first_error(sql)
        assert (err.message, err.line, err.column) == (message, 1, column), sql
        assert (err.hint == "a parenthesis is not closed") == message.endswith("end of the statement"), sql


def test_session_partition_keys_stop_before_the_next_argument():
    from planner.statements.script import parse_one

    t = parse_one("SELECT * FROM TABLE(SESSION(TABLE bid PARTITION BY item, seller, DESCRIPTOR(ts), INTERVAL '5' MINUTES));").tree
    call = t.args["from_"].this.this.this
    assert [p.name for p in call.expressions[0].args["partition_by"]] == ["item", "seller"]
    assert len(call.expressions) == 3
