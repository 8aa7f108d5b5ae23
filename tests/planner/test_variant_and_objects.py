"""VARIANT (PARSE_JSON, TRY_PARSE_JSON) and structured objects (OBJECT_OF, OBJECT_UPDATE) are typed
by the binder, and what Flink 2.3's validator refuses of them is a positioned E002 (each verdict
checked on PyFlink 2.3; their values are compared in tests/functions)."""

from __future__ import annotations

import pytest

from planner.errors import SqlError
from tests.planner.helpers import outcome

DDL = "CREATE TABLE t (s STRING, n INT, b BIGINT) WITH ('connector' = 'datagen');\n"


def plan(sql: str):
    return outcome(DDL, sql)


def types(sql: str) -> list[str]:
    from planner.dialect import type_sql

    return [type_sql(f.type) for f in plan(sql).plans[0].fields]


def test_parse_json_and_its_members_are_variants():
    assert types("SELECT PARSE_JSON(s) AS v, TRY_PARSE_JSON(s)['a'][n] AS m, JSON_STRING(PARSE_JSON(s)) AS j FROM t;") == [
        "VARIANT", "VARIANT", "STRING"]


def test_objects_are_typed_by_their_values_and_updates():
    sql = ("SELECT OBJECT_OF('com.example.User', 'name', s, 'age', n) AS o, "
           "OBJECT_OF('c', 'name', s, 'age', n).age AS a, "
           "OBJECT_UPDATE(OBJECT_OF('c', 'name', s, 'age', n), 'age', s) AS u FROM t;")
    assert types(sql) == ["OBJECT<`name` STRING, `age` INT>", "INT", "OBJECT<`name` STRING, `age` STRING>"]


# the expression, the part the error points at, the message
REFUSED = [
    ("CAST(PARSE_JSON(s) AS STRING)", "PARSE_JSON", "Cast function cannot convert value of type VARIANT to type STRING"),
    ("TRY_CAST(PARSE_JSON(s) AS INT)", "PARSE_JSON", "Cast function cannot convert value of type VARIANT to type INT"),
    ("CAST(s AS VARIANT)", "s AS", "Cast function cannot convert value of type STRING to type VARIANT"),
    ("PARSE_JSON(s)['a'].b", "PARSE_JSON", "A VARIANT has no field `b`"),
    ("OBJECT_OF('c', 'name')", "OBJECT_OF", "the last key `'name'` has no value"),
    ("OBJECT_OF('c', 'name', s, 'name', n)", "'name', n", "the field `name` is given twice"),
    ("OBJECT_OF(s, 'name', s)", "OBJECT_OF", "its first argument is the class name, a string literal"),
    ("OBJECT_OF('c', s, n)", "s, n", "a field name must be a string literal, not `s`"),
    ("OBJECT_UPDATE(OBJECT_OF('c', 'name', s), 'zzz', 1)", "'zzz'", "the object has no field `zzz`"),
    ("OBJECT_UPDATE(ROW(s, n), 'name', s)", "ROW", "is no structured object"),
    ("OBJECT_UPDATE(OBJECT_OF('c', 'name', s), 'name')", "OBJECT_UPDATE", "one or more key, value pairs"),
]


@pytest.mark.parametrize("expr, at, message", REFUSED, ids=[r[0] for r in REFUSED])
def test_what_flink_refuses_is_a_positioned_e002(expr, at, message):
    with pytest.raises(SqlError) as caught:
        plan(f"SELECT {expr} AS x FROM t;")
    err = caught.value
    assert err.code == "E002" and message in err.message
    assert (err.line, err.column) == (2, len("SELECT ") + expr.index(at) + 1)
