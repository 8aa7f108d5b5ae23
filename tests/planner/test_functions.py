"""Function names are checked when a statement is planned: a misspelt one is a positioned E002
with a suggestion, Flink's built-ins and catalog functions bind."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

DDL = "CREATE TABLE t (s STRING, n INT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen');\n"


def plan(sql: str):
    session = PlannerSession(Catalog.in_memory())
    outcome = None
    for stmt in parse_script(DDL + sql).statements:
        outcome = session.execute(stmt)
    return outcome


def test_a_misspelt_function_is_e002_at_its_name_with_a_suggestion():
    with pytest.raises(SqlError) as caught:
        plan("SELECT n, UPPR(s) FROM t;")
    err = caught.value
    assert err.code == "E002" and "No function named `UPPR`" in err.message
    assert (err.line, err.column) == (2, 11)
    assert err.hint == "did you mean `UPPER`?"


@pytest.mark.parametrize(
    "call",
    ["CHAR_LENGTH(s)", "SPLIT_INDEX(s, ',', 1)", "REGEXP_EXTRACT(s, 'a(b)', 1)", "DATE_FORMAT(ts, 'yyyy')",
     "TO_TIMESTAMP_LTZ(n, 3)", "INITCAP(s)", "IFNULL(s, 'x')", "MD5(s)", "FROM_UNIXTIME(n)"],
)
def test_flink_builtins_bind(call):
    assert plan(f"SELECT {call} FROM t;").plans


# another engine's name, a call that uses it, and Flink's spelling of that call (which must bind)
FOREIGN = [
    ("NVL", "NVL(s, 'x')", "COALESCE(s, 'x')"),
    ("LENGTH", "LENGTH(s)", "CHAR_LENGTH(s)"),
    ("POW", "POW(n, 2)", "POWER(n, 2)"),
    ("DATE", "DATE(ts)", "CAST(ts AS DATE)"),
    ("DATE_TRUNC", "DATE_TRUNC('DAY', ts)", "FLOOR(ts TO DAY)"),
    ("DATEDIFF", "DATEDIFF(ts, ts)", "TIMESTAMPDIFF(DAY, ts, ts)"),
    ("DATE_ADD", "DATE_ADD(ts, 1)", "ts + INTERVAL '1' DAY"),
    ("DATE_SUB", "date_sub(ts, 1)", "TIMESTAMPADD(DAY, -1, ts)"),
]


@pytest.mark.parametrize("name, call, flink", FOREIGN, ids=[f[0] for f in FOREIGN])
def test_another_engines_function_is_refused_as_flink_refuses_it_with_flinks_spelling(name, call, flink):
    """Flink 2.3's validator refuses these ('No match found for function signature'): a query
    that passes here must not fail in Flink (tests/functions/not_compared.txt had them)."""
    with pytest.raises(SqlError) as caught:
        plan(f"SELECT n, {call} FROM t;")
    err = caught.value
    assert err.code == "E002" and f"`{call.split('(')[0]}` is not a Flink SQL function" in err.message
    assert (err.line, err.column) == (2, 11)
    head = flink.split("(")[0].split(" ")[0]
    assert err.hint is not None and err.hint.startswith("write ") and (head in err.hint or "INTERVAL" in err.hint)
    assert plan(f"SELECT n, {flink} FROM t;").plans


def test_a_user_function_may_take_another_engines_name():
    outcome = plan("CREATE FUNCTION nvl AS 'com.example.Nvl';\nSELECT nvl(s, 'x') FROM t;")
    assert outcome.plans


def test_a_catalog_function_binds_whatever_its_name():
    outcome = plan("CREATE FUNCTION my_fn AS 'com.example.MyFn';\nSELECT my_fn(s) FROM t;")
    assert outcome.plans


@pytest.mark.parametrize(
    "expr, typed",
    [
        ("CAST(n AS DECIMAL(10, 3)) / 3", "DECIMAL(21, 14)"),  # Flink 2.3's type (tests/functions: m / 3)
        ("CAST(n AS DECIMAL(38, 18)) / CAST(n AS DECIMAL(38, 18))", "DECIMAL(38, 6)"),  # cut to 38 digits, scale 6 kept
        ("CAST(n AS DECIMAL(5, 2)) / CAST(n AS DECIMAL(5, 2))", "DECIMAL(13, 8)"),
    ],
)
def test_a_decimal_quotient_is_typed_as_flink_types_it(expr, typed):
    (field,) = plan(f"SELECT {expr} AS q FROM t;").plans[0].fields
    assert field.type.sql() == typed


@pytest.mark.parametrize(
    "call, typed",
    [
        # Flink 2.3 (checked with PyFlink: AVG of 1.50, 2.25 and 1.00 as DECIMAL(10, 2) is 1.583333
        # of DECIMAL(38, 6), with or without DISTINCT)
        ("AVG(CAST(n AS DECIMAL(10, 2)))", "DECIMAL(38, 6)"),
        ("AVG(DISTINCT CAST(n AS DECIMAL(10, 2)))", "DECIMAL(38, 6)"),
        ("AVG(CAST(n AS DECIMAL(20, 8)))", "DECIMAL(38, 8)"),
        ("STDDEV_POP(CAST(n AS DECIMAL(10, 2)))", "DECIMAL(38, 6)"),
        ("AVG(n)", "INT"),  # an integer's own type: its average truncated
    ],
)
def test_an_average_is_typed_as_flink_types_it(call, typed):
    (field,) = plan(f"SELECT {call} AS a FROM t;").plans[0].fields
    assert field.type.sql() == typed


@pytest.mark.parametrize(
    "sql, column",
    [
        ("SELECT COUNT(*) FROM t GROUP BY CUMULATE(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR);", 33),
        ("SELECT CUMULATE(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR) FROM t;", 8),
    ],
)
def test_cumulate_is_only_a_window_table_function_as_in_flink(sql, column):
    """Flink 2.3 has no GROUP BY CUMULATE(...) group window; its validator says "Cannot call
    table function here: 'CUMULATE'" (checked with PyFlink 2.3), and so does the binder."""
    with pytest.raises(SqlError) as caught:
        plan(sql)
    err = caught.value
    assert "Cannot call table function here: 'CUMULATE'" in err.message and "FROM TABLE(CUMULATE(" in err.message
    assert (err.line, err.column) == (2, column)


@pytest.mark.parametrize("prop", ["CUMULATE_START", "CUMULATE_END"])
def test_cumulate_has_no_group_window_properties(prop):
    with pytest.raises(SqlError) as caught:
        plan(f"SELECT {prop}(ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR) FROM t;")
    assert caught.value.code == "E002" and (caught.value.line, caught.value.column) == (2, 8)


@pytest.mark.parametrize("name", ["BIT_AND", "BIT_OR", "BIT_XOR", "ANY_VALUE"])
def test_aggregates_flink_does_not_have_are_refused_at_their_name(name):
    """Flink 2.3 refuses these ("No match found for function signature BIT_AND(<NUMERIC>)",
    checked with PyFlink 2.3); sqlglot reads them as aggregates of its own."""
    with pytest.raises(SqlError) as caught:
        plan(f"SELECT s, {name}(n) FROM t GROUP BY s;")
    err = caught.value
    assert err.code == "E002" and f"`{name}` is not a Flink SQL function" in err.message
    assert (err.line, err.column) == (2, 11)
    assert err.hint is not None and ("MIN(x)" in err.hint if name == "ANY_VALUE" else "user-defined aggregate" in err.hint)
