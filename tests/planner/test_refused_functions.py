"""Built-in functions whose result Spark cannot give as Flink does are refused when the statement
is planned (planner.analysis.check.functions.REFUSED), as one SE301 finding that names the
function and points at the call: lint, EXPLAIN and the job's start all see it. No Spark here."""

from __future__ import annotations

import pytest

from catalog import Catalog
from planner.analysis.check import Code
from planner.analysis.check.functions import REFUSED
from planner.statements.script import parse_script
from planner.statements.session import Outcome, PlannerSession

DDL = """CREATE TABLE t (v BIGINT, s STRING, m DECIMAL(10, 3), ts AS TO_TIMESTAMP_LTZ(v, 3), lt AS LOCALTIMESTAMP)
WITH ('connector' = 'datagen');
"""
CALLS = {  # one call of each refused function
    "TYPEOF": "TYPEOF(m)",
}

PLAIN_CALLS: set[str] = set()  # exp.Anonymous calls, positioned by their name


def plan(sql: str) -> Outcome:
    session = PlannerSession(Catalog.in_memory(), settings={"execution.runtime-mode": "batch"})
    *_, outcome = [session.execute(s) for s in parse_script(DDL + sql).statements]
    return outcome


def test_every_refused_function_has_a_call_here() -> None:
    assert set(CALLS) == set(REFUSED)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_refused_function_is_one_positioned_se301_finding_naming_it(name: str) -> None:
    outcome = plan(f"SELECT v,\n  {CALLS[name]} AS x FROM t;")
    (p,) = outcome.analysis.problems
    assert p.code == Code.FUNCTION_DIFFERS
    assert p.reason == f"{name} cannot give Flink's result on Spark: {REFUSED[name]}"
    (d,) = [d for d in outcome.analysis.diagnostics if d.code == "SE301"]
    assert name in d.message
    if name in PLAIN_CALLS:  # the call itself; a sqlglot node (TYPEOF) keeps no position, the statement's is used
        assert (d.line - DDL.count("\n"), d.column) == (2, 3)
    else:
        assert d.line - DDL.count("\n") == 1


def test_hash_code_is_refused_only_for_a_type_whose_java_hashcode_spark_cannot_compute() -> None:
    (p,) = plan("SELECT v,\n  HASH_CODE(m) AS x FROM t;").analysis.problems
    assert p.code == Code.FUNCTION_DIFFERS and "Java's hashCode of a DECIMAL(10, 3)" in p.reason
    (d,) = [d for d in plan("SELECT v,\n  HASH_CODE(m) AS x FROM t;").analysis.diagnostics if d.code == "SE301"]
    assert (d.line - DDL.count("\n"), d.column) == (2, 3)
    assert not plan("SELECT HASH_CODE(s), HASH_CODE(v), JSON_QUOTE(s), JSON_UNQUOTE(s) FROM t;").analysis.problems


def test_a_user_function_of_a_refused_name_is_not_refused() -> None:
    outcome = plan("CREATE FUNCTION `typeof` AS 'com.example.TypeOf';\nSELECT `typeof`(s) FROM t;")
    assert [p.code for p in outcome.analysis.problems] == [Code.USER_FUNCTION]  # a JVM class, not the built-in


@pytest.mark.parametrize("precision", ["6", "v"])
def test_to_timestamp_ltz_takes_precision_0_or_3(precision: str) -> None:
    (p,) = plan(f"SELECT TO_TIMESTAMP_LTZ(v, {precision}) FROM t;").analysis.problems
    assert p.code == Code.FUNCTION_DIFFERS and "TO_TIMESTAMP_LTZ" in p.reason


def test_the_computed_time_columns_of_the_issue_plan_without_a_finding() -> None:
    """ts AS TO_TIMESTAMP_LTZ(v, 3) and lt AS LOCALTIMESTAMP run (tests/functions runs them)."""
    assert not plan("SELECT ts, lt, TO_TIMESTAMP_LTZ(v, 0) FROM t;").analysis.problems


@pytest.mark.parametrize("call", ["JSON_VALUE(s, s)", "JSON_QUERY(s, 'strict $.a')", "JSON_EXISTS(s, CONCAT('$.', s))"])
def test_a_json_path_spark_cannot_read_is_refused_naming_the_function(call: str) -> None:
    (p,) = plan(f"SELECT {call} FROM t;").analysis.problems
    assert p.code == Code.FUNCTION_DIFFERS and call.split("(", maxsplit=1)[0] in p.reason and "lax mode" in p.reason


def test_a_json_path_in_lax_mode_is_not_refused() -> None:
    assert plan("SELECT JSON_VALUE(s, 'lax $.a'), JSON_EXISTS(s, '$.b') FROM t;").analysis.problems == ()


@pytest.mark.parametrize(("call", "returns"), [
    ("JSON_VALUE(s, '$.a' RETURNING BIGINT)", "BIGINT"),
    ("JSON_VALUE(s, '$.a' RETURNING CHAR(3))", "CHAR(3)"),
    ("JSON_VALUE(s, '$.a' RETURNING ARRAY<STRING>)", "ARRAY<STRING>"),
    ("JSON_QUERY(s, '$.a' RETURNING INT)", "INT"),
    ("JSON_QUERY(s, '$.a' RETURNING ARRAY<INT>)", "ARRAY<INT>"),
])
def test_a_json_returning_type_flink_cannot_generate_is_an_error_at_the_call(call: str, returns: str) -> None:
    from planner.errors import SqlError

    with pytest.raises(SqlError) as err:
        plan(f"SELECT v, {call} FROM t;")
    assert f"{call.split('(', maxsplit=1)[0]} cannot return {returns}: Flink takes" in err.value.message
    assert err.value.source.text[err.value.span.start:].startswith(call.split("(", maxsplit=1)[0])


def test_the_json_returning_types_flink_takes_are_accepted() -> None:
    ok = ("JSON_VALUE(s, '$.a' RETURNING INT), JSON_VALUE(s, '$.a' RETURNING DOUBLE), JSON_VALUE(s, '$.a' RETURNING BOOLEAN), "
          "JSON_VALUE(s, '$.a' RETURNING VARCHAR(3)), JSON_QUERY(s, '$.a' RETURNING ARRAY<STRING>), JSON_QUERY(s, '$.a' RETURNING STRING)")
    assert plan(f"SELECT {ok} FROM t;").analysis.problems == ()
