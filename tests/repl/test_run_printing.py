"""`sqlengine run`'s table of rows: nested values are written as the shell and Flink write them,
not as Python's reprs (a ROW as its values, a structured OBJECT with its field names: the column's
planned type tells them apart); JSON output keeps them as JSON."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest
from pyspark.sql import Row
from sqlglot import exp

from planner.dialect import parse_type
from planner.statements.script import parse_script
from repl.run_cmd import print_rows

ROW = (Row(name="Bob", age=42), [1, None, 3], {"k": Row(x=1)}, "plain", None)
COLUMNS = ("r", "a", "m", "s", "n")


def cells(out: io.StringIO) -> list[str]:
    line = out.getvalue().splitlines()[3]
    return [c.strip() for c in line.strip("|").split("|")]


def test_the_table_writes_rows_arrays_and_maps_flinks_way():
    out = io.StringIO()
    print_rows(COLUMNS, [ROW], "tableau", out=out)  # no types: every struct is a ROW
    assert cells(out) == ["(Bob, 42)", "[1, NULL, 3]", "{k=(1)}", "plain", "NULL"]


def as_object(t: exp.DataType) -> exp.DataType:
    """The same fields as a structured type (OBJECT_OF's type)."""
    return exp.DataType(this=exp.DType.OBJECT, expressions=t.expressions, nested=True)


def test_a_structured_object_names_its_fields_wherever_it_is_nested():
    person = parse_type("ROW<name STRING, age INT>")
    out = io.StringIO()
    print_rows(COLUMNS, [ROW], "tableau", out=out, types=(person, None, None, None, None))
    assert cells(out)[0] == "(Bob, 42)"
    in_map = exp.DataType(this=exp.DType.MAP, expressions=[parse_type("STRING"), as_object(parse_type("ROW<x INT>"))], nested=True)
    out = io.StringIO()
    print_rows(COLUMNS, [ROW], "tableau", out=out, types=(as_object(person), None, in_map, None, None))
    assert cells(out)[:3] == ["(name=Bob, age=42)", "[1, NULL, 3]", "{k=(x=1)}"]


def test_a_decimal_keeps_its_scale_in_the_table():
    out = io.StringIO()
    print_rows(("k", "a", "f"), [(1, Decimal("3.000000"), 2.5), (22, Decimal("-1.583333"), 0.25)], "tableau", out=out)
    assert cells(out) == ["1", "3.000000", "2.5"]
    assert out.getvalue().splitlines()[4].split("|")[2].strip() == "-1.583333"


def test_json_keeps_nested_values_as_json():
    out = io.StringIO()
    print_rows(COLUMNS, [ROW], "json", out=out)
    assert json.loads(out.getvalue()) == {"r": {"name": "Bob", "age": 42}, "a": [1, None, 3], "m": {"k": {"x": 1}},
                                          "s": "plain", "n": None}


# Flink 2.3's SQL client printed this row (PyFlink, TableResult.print(), batch mode)
FLINK_ROW = ["(Bob, 42)", "(a, 1)", "[(1, x)]", "{k=(1, 2)}", "(NULL, z)", "(name=Bob, age=42)", "[(name=Bob)]"]
NESTED = (
    "SELECT ROW('Bob', 42) AS r, CAST(ROW('a', 1) AS ROW<name STRING, age INT>) AS r2, ARRAY[ROW(1, 'x')] AS a, "
    "MAP['k', ROW(1, 2)] AS m, ROW(CAST(NULL AS INT), 'z') AS rn, OBJECT_OF('com.example.User', 'name', 'Bob', 'age', 42) AS o, "
    "ARRAY[OBJECT_OF('com.example.User', 'name', 'Bob')] AS ao;"
)


@pytest.mark.spark
def test_a_query_prints_its_nested_values_as_flinks_client_does(spark_engine):
    (stmt,) = parse_script(NESTED).statements
    job = spark_engine.start(spark_engine.plan(stmt))
    job.wait()
    assert job.result is not None, job.error_detail
    out = io.StringIO()
    print_rows(job.result.columns, job.result.rows(), "tableau", out=out, types=job.result.types)
    assert cells(out) == FLINK_ROW
