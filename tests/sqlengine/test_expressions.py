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


def evaluate(spark, flink_sql: str, s: str | None):  # type: ignore[no-untyped-def]
    sql = SparkExpressions({"s": Field("s", T.STRING)}).sql(sqlglot.parse_one(flink_sql, read=Flink))
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
