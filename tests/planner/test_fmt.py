"""`sqlengine fmt`: canonical, idempotent, comment-preserving, tree-preserving."""

from __future__ import annotations

import re

import pytest

from planner.errors import SqlErrors
from planner.fmt import format_sql
from planner.statements.script import parse_script
from tests.fixtures.loader import nexmark_files


def _comment_words(text: str) -> list[str]:
    comments = re.findall(r"--[^\n]*|/\*.*?\*/", text, flags=re.S)
    words = []
    for c in comments:
        words.extend(re.findall(r"[A-Za-z0-9_]+", c))
    return sorted(words)


@pytest.mark.parametrize("path", nexmark_files(), ids=lambda p: p.name)
def test_format_is_idempotent_keeps_trees_and_comments(path):
    text = path.read_text()
    once = format_sql(text, str(path))
    assert format_sql(once) == once
    before = [s.tree for s in parse_script(text).statements]
    after = [s.tree for s in parse_script(once).statements]
    assert before == after
    assert _comment_words(once) == _comment_words(text)


def test_canonical_layout():
    text = "create table t (a int, `user` string, ts timestamp(3), watermark for ts as ts - interval '5' second) with ('connector'='datagen','rows-per-second'='5');select a,count(*) from t group by a"
    assert format_sql(text) == (
        "CREATE TABLE t (\n"
        "  a INT,\n"
        "  `user` STRING,\n"
        "  ts TIMESTAMP(3),\n"
        "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND\n"
        ")\n"
        "WITH (\n"
        "  'connector'       = 'datagen',\n"
        "  'rows-per-second' = '5'\n"
        ");\n"
        "\n"
        "SELECT\n"
        "  a,\n"
        "  COUNT(*)\n"
        "FROM t\n"
        "GROUP BY\n"
        "  a;\n"
    )


def test_comments_after_semicolon_and_at_end_survive():
    text = "SELECT 1; -- one\n-- before two\nSELECT 2;\n-- the end\n"
    out = format_sql(text)
    assert "SELECT\n  1; -- one" in out
    assert "-- before two\nSELECT\n  2;\n-- the end" in out
    assert format_sql(out) == out


def test_bad_sql_raises_positioned_errors():
    with pytest.raises(SqlErrors) as info:
        format_sql("SELECT 1;\nSELECT a, FROM t;", "x.sql")
    err = info.value.errors[0]
    assert (err.line, err.column) == (2, 9)
    assert "select list" in err.message


def test_insert_overwrite_and_binary_types_stay_flink():
    text = (
        "create table s2 (k varbinary(10), b binary(4), v bytes, s string, d decimal(10, 2), "
        "t timestamp(3) with local time zone, i interval day(2) to second(3)) with ('connector'='blackhole');\n"
        "insert overwrite s2 select * from s1;\n"
    )
    out = format_sql(text)
    assert "  k VARBINARY(10),\n  b BINARY(4),\n  v BYTES,\n  s STRING,\n  d DECIMAL(10, 2),\n" in out
    assert "  t TIMESTAMP_LTZ(3),\n  i INTERVAL DAY(2) TO SECOND(3)\n" in out
    assert "INSERT OVERWRITE s2\nSELECT" in out and "OVERWRITE TABLE" not in out
    assert format_sql(out) == out


@pytest.mark.parametrize(
    "text,expected",
    [
        ("SELECT * FROM t /*+ OPTIONS('a'='b') */;", "SELECT\n  *\nFROM t /*+ OPTIONS('a' = 'b') */;\n"),
        (
            "SELECT * FROM t /*+ OPTIONS('a'='b') */ WHERE x = 1;",
            "SELECT\n  *\nFROM t /*+ OPTIONS('a' = 'b') */\nWHERE\n  x = 1;\n",
        ),
        (
            "SELECT * FROM t /*+ OPTIONS('a'='b') */ AS o JOIN u /*+ OPTIONS('c'='d') */ ON o.k = u.k;",
            "SELECT\n  *\nFROM t /*+ OPTIONS('a' = 'b') */ AS o\nJOIN u /*+ OPTIONS('c' = 'd') */\n  ON o.k = u.k;\n",
        ),
        (
            "SELECT * FROM t /*+ OPTIONS('a'='b') */ -- after the hint\nWHERE x = 1;",
            "SELECT\n  *\nFROM t /*+ OPTIONS('a' = 'b') */ /* after the hint */\nWHERE\n  x = 1;\n",
        ),
    ],
)
def test_table_hint_stays_a_hint_after_the_table_and_is_not_copied_into_a_comment(text, expected):
    out = format_sql(text)
    assert out == expected
    assert out.count("OPTIONS(") == text.count("OPTIONS(")
    assert format_sql(out) == out


def test_user_function_names_keep_their_case_and_builtins_are_upper_case():
    text = (
        "select my_udf(a), MyUdf(b), upper(c), split(s), count(*) from t, lateral table(split(s)) as x(w) "
        "group by my_udf(a), MyUdf(b), upper(c), split(s);\n"
        "create table v (a int, b as my_udf(a), c as char_length(s)) with ('connector'='datagen');\n"
    )
    out = format_sql(text)
    assert out.startswith(
        "SELECT\n  my_udf(a),\n  MyUdf(b),\n  UPPER(c),\n  split(s),\n  COUNT(*)\n"
        "FROM t, LATERAL TABLE(split(s)) AS x(w)\n"
    )
    assert "  b AS my_udf(a),\n  c AS CHAR_LENGTH(s)\n" in out
    assert "MY_UDF" not in out and "MYUDF" not in out and "SPLIT(" not in out
    assert format_sql(out) == out
