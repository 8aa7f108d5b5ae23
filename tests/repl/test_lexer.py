"""The shell's pygments lexer on our dialect, and its colours in the real prompt."""

from __future__ import annotations

from pygments.token import Comment, Keyword, Name, Number, String

from repl.lexer import FlinkSqlLexer
from tests.repl.shell_driver import CTRL_C


def tokens(sql: str) -> list[tuple[object, str]]:
    return [(t, v) for t, v in FlinkSqlLexer().get_tokens(sql) if v.strip()]


def kind_of(sql: str, text: str) -> object:
    return next(t for t, v in tokens(sql) if v == text)


def test_keywords_any_case_and_types():
    sql = "select item FROM bids WHERE price > 3 GROUP BY item"
    assert kind_of(sql, "select") is Keyword
    assert kind_of(sql, "FROM") is Keyword and kind_of(sql, "GROUP") is Keyword
    assert kind_of(sql, "item") is Name and kind_of(sql, "bids") is Name
    assert kind_of("CAST(x AS BIGINT)", "BIGINT") is Keyword.Type
    assert kind_of("CREATE TABLE t (ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts)", "WATERMARK") is Keyword


def test_strings_with_quotes_and_semicolons_stay_strings():
    toks = tokens("SELECT 'it''s; -- not a comment' AS s")
    text = "".join(v for t, v in toks if t in String)
    assert text == "'it''s; -- not a comment'"
    assert not any(t in Comment for t, _v in toks)


def test_backquoted_names_comments_hints_numbers_variables():
    sql = "SELECT /*+ STATE_TTL('o' = '1d') */ `select`, 1.5e3, 42, ${limit} -- tail\nFROM t /* block */"
    toks = tokens(sql)
    assert ("".join(v for t, v in toks if t is Name.Quoted)) == "`select`"
    assert any(t is Comment.Special and "STATE_TTL" in v for t, v in toks)
    assert (Number.Float, "1.5e3") in toks and (Number.Integer, "42") in toks
    assert (Name.Variable, "${limit}") in toks
    assert (Comment.Single, "-- tail") in toks
    assert any(t is Comment.Multiline and "block" in v for t, v in toks)


def test_functions_built_in_and_user():
    sql = "SELECT COUNT(*), date_format(ts, 'yyyy'), my_udf (a) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
    assert kind_of(sql, "COUNT") is Name.Builtin
    assert kind_of(sql, "date_format") is Name.Builtin
    assert kind_of(sql, "my_udf") is Name.Function
    assert kind_of(sql, "TUMBLE") is Name.Builtin
    assert kind_of(sql, "DESCRIPTOR") is Keyword


def test_a_column_named_like_a_function_is_a_name():
    assert kind_of("SELECT count FROM t", "count") is Keyword  # COUNT is reserved in Flink
    assert kind_of("SELECT user_count FROM t", "user_count") is Name


def test_the_prompt_colours_what_is_typed(engine, shell_of):
    sh = shell_of(engine)
    mark = len(sh.screen.getvalue())
    sh.send("SELECT 'txt' FROM t")
    sh.wait_until(lambda: sh.buffer_text() == "SELECT 'txt' FROM t", what="typed text")
    sh.wait_until(lambda: "FROM" in sh.screen.getvalue()[mark:], what="the echo")
    raw = sh.screen.getvalue()[mark:]
    # keyword: bold #5f87ff (xterm 69); string: #5faf5f (xterm 71) -- see repl/style.py
    assert "\x1b[0;38;5;69;1mSELECT" in raw
    assert "38;5;71m'txt'" in raw
    sh.send(CTRL_C)
