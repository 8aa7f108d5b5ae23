"""Flink's function semantics where Spark's differ, evaluated by Spark: the translator's SQL for an
expression gives Flink's answer."""

from __future__ import annotations

import pytest
import sqlglot

from planner.dialect import Flink
from planner.logical import typing as T
from planner.logical.fields import Field
from sqlengine.translate.expressions import SparkExpressions

pytestmark = pytest.mark.spark


def evaluate(spark, flink_sql: str, s: str | None):
    sql = SparkExpressions({"s": Field("s", T.STRING)}).sql(sqlglot.parse_one(f"SELECT {flink_sql}", read=Flink).expressions[0])
    return spark.sql(f"SELECT {sql} AS r FROM VALUES (CAST(? AS STRING)) AS v(s)", args=[s]).collect()[0].r


@pytest.mark.parametrize(
    ("call", "value", "expected"),
    [
        # the delimiter is a string, not a regex; empty strings are kept; '' splits characters
        ("SPLIT(s, '.')", "a.b..c.", ["a", "b", "", "c", ""]),
        ("SPLIT(s, '|')", "a|b", ["a", "b"]),
        ("SPLIT(s, ',')", "abc", ["abc"]),
        ("SPLIT(s, '')", "abc", ["a", "b", "c"]),
        ("SPLIT(s, ',')", None, None),
        ("SPLIT_INDEX(s, '.', 1)", "a.b.c", "b"),
        ("SPLIT_INDEX(s, '.', 5)", "a.b.c", None),
        ("SPLIT_INDEX(s, '.', -1)", "a.b.c", None),
    ],
)
def test_string_splitting_as_flink(spark, call, value, expected):
    assert evaluate(spark, call, value) == expected


@pytest.mark.parametrize(
    ("condition", "value", "expected", "as_in"),
    [
        # an OR of equalities on one column is one IN (the column computed once), with the same
        # truth values, NULL included
        ("s = 'OR' OR s = 'ID' OR 'CA' = s", "ID", True, True),
        ("s = 'OR' OR s = 'ID' OR 'CA' = s", "WA", False, True),
        ("s = 'OR' OR s = 'ID' OR 'CA' = s", None, None, True),
        # anything else stays as written
        ("s = 'OR' OR s LIKE 'I%'", "ID", True, False),
        ("s = 'OR' OR s = 1", "OR", True, False),
    ],
)
def test_an_or_of_equalities_is_one_in(spark, condition, value, expected, as_in):
    sql = SparkExpressions({"s": Field("s", T.STRING)}).sql(sqlglot.parse_one(f"SELECT {condition}", read=Flink).expressions[0])
    assert (" IN (" in sql) == as_in
    assert evaluate(spark, condition, value) is expected
