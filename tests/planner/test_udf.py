"""Python user functions as the planner sees them, without Spark: SQL types from annotations and
``@function``, the binder's positioned errors, lint and EXPLAIN reading a function's result type,
the module search path (the .sql file's directory, SET 'python.files')."""

from __future__ import annotations

import datetime
import decimal
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from catalog import Catalog
from planner.errors import SqlError
from planner.lint.driver import lint_paths
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession
from planner.udf import UdfError, function, signature
from planner.udf.types import NotASqlType, row_type, sql_type

ROOT = Path(__file__).resolve().parents[2]
DDL = "CREATE TABLE t (s STRING, n INT, d DECIMAL(10, 2)) WITH ('connector' = 'datagen');\n"


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (int, "BIGINT"), (str, "STRING"), (float, "DOUBLE"), (bool, "BOOLEAN"), (bytes, "BYTES"),
        (datetime.date, "DATE"), (datetime.datetime, "TIMESTAMP(3)"), (decimal.Decimal, "DECIMAL(38, 18)"),
        (int | None, "BIGINT"), (list[str], "ARRAY<STRING>"), (dict[str, int], "MAP<STRING, BIGINT>"),
        (list[float | None], "ARRAY<DOUBLE>"),
    ],
)
def test_annotations_map_to_flink_types(annotation, expected):
    assert sql_type(annotation) == expected


def test_annotations_without_a_sql_type():
    with pytest.raises(NotASqlType, match="union of several types"):
        sql_type(int | str)
    with pytest.raises(NotASqlType, match="has no SQL type"):
        sql_type(object)
    assert row_type(Iterator[tuple[int, str]]) == "ROW<f0 BIGINT, f1 STRING>"
    assert row_type(Iterator[str]) == "ROW<f0 STRING>"


def count_char(s: str, c: str) -> int:
    return s.count(c)


@function(result="DECIMAL(10, 2)", deterministic=False)
def taxed(price: decimal.Decimal, rate: float = 0.2) -> decimal.Decimal:
    return price


def split(s: str) -> Iterator[tuple[str, int]]:
    yield s, 1


@function(result="ROW<word STRING, n INT>")
def split_named(s: str):  # type: ignore[no-untyped-def]
    yield s, 1


@function(result="BIGINT", vectorized=True)
def vec(a, b):  # type: ignore[no-untyped-def]
    return a


def no_types(s):  # type: ignore[no-untyped-def]
    return s


def no_result(s: str):  # type: ignore[no-untyped-def]
    return s


def test_signatures():
    sig = signature("m.count_char", count_char)
    assert (sig.params, sig.result, sig.table, sig.deterministic, sig.arity()) == (("STRING", "STRING"), "BIGINT", False, True, "2")
    sig = signature("m.taxed", taxed)
    assert (sig.params, sig.result, sig.deterministic, sig.arity()) == (("DECIMAL(38, 18)", "DOUBLE"), "DECIMAL(10, 2)", False, "1 to 2")
    assert signature("m.split", split).result == "ROW<f0 STRING, f1 BIGINT>" and signature("m.split", split).table
    assert signature("m.split_named", split_named).result == "ROW<word STRING, n INT>"
    sig = signature("m.vec", vec)
    assert (sig.params, sig.vectorized) == ((None, None), True)
    with pytest.raises(UdfError, match="no type annotation for parameter `s`"):
        signature("m.no_types", no_types)
    with pytest.raises(UdfError, match="no return type annotation"):
        signature("m.no_result", no_result)


MODULE = """\
from __future__ import annotations
from collections.abc import Iterator
from sqlengine.udf import function

def count_char(s: str | None, c: str) -> int:
    return 0 if s is None else s.count(c)

@function(result="DECIMAL(10, 2)")
def money(x: float) -> float:
    return x

@function(result="NOT A TYPE(")
def broken(x: float) -> float:
    return x

def words(s: str) -> Iterator[tuple[str, int]]:
    for w in s.split():
        yield w, len(w)

def untyped(s):
    return s

class Total:
    def accumulate(self, acc, v):
        pass

class Wavg:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, v: int | None, w: int = 1) -> None:
        if v is not None:
            acc[0] += v * w
            acc[1] += w

    def retract(self, acc, v: int | None, w: int = 1) -> None:
        if v is not None:
            acc[0] -= v * w
            acc[1] -= w

    def get_value(self, acc) -> float | None:
        return acc[0] / acc[1] if acc[1] else None

@function(result="DECIMAL(10, 2)", params=("DECIMAL(10, 2)",))
class Money:
    def create_accumulator(self):
        return []

    def accumulate(self, acc, x):
        acc.append(x)

    def get_value(self, acc):
        return sum(acc)
"""


def _script(tmp_path: Path, module: str, sql: str) -> Path:
    (tmp_path / f"{module}.py").write_text(MODULE)
    f = tmp_path / "job.sql"
    f.write_text(DDL + textwrap.dedent(sql))
    return f


def _run(path: Path, settings: dict[str, str] | None = None) -> list:
    session = PlannerSession(Catalog.in_memory(), settings=settings)
    out = []
    for stmt in parse_script(path.read_text(), str(path)).statements:
        try:
            out.append(session.execute(stmt))
        except SqlError as err:
            out.append(err)
    return out


def test_a_call_has_its_functions_result_type(tmp_path):
    f = _script(tmp_path, "udf_types", """\
        CREATE TEMPORARY FUNCTION cc AS 'udf_types.count_char' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION money AS 'udf_types.money' LANGUAGE PYTHON;
        CREATE VIEW v AS SELECT cc(s, 'a') AS k, money(n) AS m FROM t;
        DESCRIBE v;
        EXPLAIN SELECT cc(s, 'a') + 1 AS k FROM t;
        """)
    *_, describe, explain = _run(f)
    types = {row[0]: row[1] for row in describe.rows}
    assert types == {"k": "BIGINT", "m": "DECIMAL(10, 2)"}
    assert "cc(`s`, 'a') + 1 AS k" in explain.text and "runs as written" in explain.text


def test_binder_errors_are_positioned_at_the_call(tmp_path):
    f = _script(tmp_path, "udf_errors", """\
        CREATE TEMPORARY FUNCTION cc AS 'udf_errors.count_char' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION nomod AS 'no_such_module.f' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION nofn AS 'udf_errors.nothing' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION untyped AS 'udf_errors.untyped' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION broken AS 'udf_errors.broken' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION words AS 'udf_errors.words' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION total AS 'udf_errors.Total' LANGUAGE PYTHON;
        SELECT cc(s) FROM t;
        SELECT s, nomod(s) FROM t;
        SELECT nofn(s) FROM t;
        SELECT untyped(s) FROM t;
        SELECT broken(n) FROM t;
        SELECT words(s) FROM t;
        SELECT x FROM t, LATERAL TABLE(cc(s, 'a')) AS T(x);
        SELECT x FROM t, LATERAL TABLE(words(s)) AS T(x);
        """)
    errors = [o for o in _run(f) if isinstance(o, SqlError)]
    got = [(e.line, e.column, e.message) for e in errors]
    assert got == [
        (9, 8, "Function `cc` ('udf_errors.count_char') takes 2 arguments, not 1"),
        (10, 11, "Function `nomod`: cannot import Python module 'no_such_module': No module named 'no_such_module'"),
        (11, 8, "Function `nofn`: Python module 'udf_errors' has no function `nothing`"),
        (12, 8, "Function `untyped`: 'udf_errors.untyped' has no type annotation for parameter `s`"),
        (13, 8, "Function `broken`: 'udf_errors.broken' declares the type 'NOT A TYPE(', which is not a Flink SQL type"),
        (14, 8, "`words` is a table function: call it in FROM, as LATERAL TABLE(words(...))"),
        (15, 32, "`cc` is a scalar function; LATERAL TABLE calls a table function (a Python generator)"),
        (16, 45, "The alias names 1 column but `words` returns rows of 2: ROW<f0 STRING, f1 BIGINT>"),
    ]
    assert all(str(f) == e.source.path for e in errors)


def test_a_class_without_the_aggregate_methods_is_refused_at_its_call(tmp_path):
    f = _script(tmp_path, "udf_classes", """\
        CREATE TEMPORARY FUNCTION total AS 'udf_classes.Total' LANGUAGE PYTHON;
        SELECT s, total(n) AS x FROM t GROUP BY s;
        """)
    err = _run(f)[-1]
    assert (err.line, err.column) == (3, 11)
    assert err.message == (
        "Function `total`: 'udf_classes.Total' is a class without a `create_accumulator` method: it is not an aggregate function"
    )


def test_a_python_aggregate_function_is_an_aggregate_with_its_declared_types(tmp_path):
    f = _script(tmp_path, "udf_aggs", """\
        CREATE TEMPORARY FUNCTION wavg AS 'udf_aggs.Wavg' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION money AS 'udf_aggs.Money' LANGUAGE PYTHON;
        CREATE VIEW v AS SELECT s, wavg(n, n) AS a, wavg(n) AS b, money(n) FILTER (WHERE n > 0) AS m FROM t GROUP BY s;
        DESCRIBE v;
        EXPLAIN SELECT s, wavg(n) AS a FROM t GROUP BY s;
        SELECT s FROM t WHERE wavg(n) > 1;
        SELECT s, wavg(n, n, n) FROM t GROUP BY s;
        SELECT s, wavg(n) + 1 FROM t;
        """)
    *_, describe, explain, where, arity, ungrouped = _run(f)
    assert {row[0]: row[1] for row in describe.rows} == {"s": "STRING", "a": "DOUBLE", "b": "DOUBLE", "m": "DECIMAL(10, 2)"}
    assert "GroupAggregate(groupBy=[s], select=[wavg(`n`) AS $agg0])" in explain.text
    assert "changelog operator (Spark has no operator for it)" in explain.text
    assert (where.line, where.column, where.message) == (7, 23, "Aggregate function wavg is not allowed here")
    assert (arity.line, arity.column, arity.message) == (8, 11, "Function `wavg` ('udf_aggs.Wavg') takes 1 to 2 arguments, not 3")
    assert ungrouped.line == 9 and "s" in ungrouped.message
def test_python_files_setting_adds_to_the_search_path(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "udf_elsewhere.py").write_text(MODULE)
    f = tmp_path / "sql" / "job.sql"
    f.parent.mkdir()
    f.write_text(DDL + textwrap.dedent("""\
        CREATE TEMPORARY FUNCTION cc AS 'udf_elsewhere.count_char' LANGUAGE PYTHON;
        SELECT cc(s, 'a') FROM t;
        SET 'python.files' = '../lib/udf_elsewhere.py';
        SELECT cc(s, 'a') FROM t;
        """))
    outcomes = _run(f)
    assert isinstance(outcomes[2], SqlError) and "cannot import Python module 'udf_elsewhere'" in outcomes[2].message
    assert outcomes[4].analysis is not None and not outcomes[4].analysis.problems


def test_jvm_functions_stay_refused_with_their_language(tmp_path):
    f = tmp_path / "job.sql"
    f.write_text(DDL + "CREATE FUNCTION cc AS 'com.example.CountChar';\nSELECT cc(s, 'a') FROM t;\n")
    (problem,) = _run(f)[-1].analysis.problems
    assert problem.code.value == "user-function"
    assert "'com.example.CountChar' (JAVA) without USING JAR, so there is no class to load" in problem.message


def test_lint_reports_each_bad_function_and_keeps_going(tmp_path):
    f = _script(tmp_path, "udf_lint", """\
        CREATE TEMPORARY FUNCTION missing AS 'udf_nowhere.f' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION cc AS 'udf_lint.count_char' LANGUAGE PYTHON;
        SELECT missing(s) FROM t;
        SELECT cc(s, 'a'), COUNT(*) FROM t GROUP BY cc(s, 'a');
        """)
    result = lint_paths([f])
    found = sorted((d.line, d.code) for d in result.diagnostics)
    assert found == [(4, "E002"), (5, "SE101")]


def test_lint_in_a_subprocess_reads_a_function_without_pyspark(tmp_path):
    f = _script(tmp_path, "udf_nospark", """\
        CREATE TEMPORARY FUNCTION cc AS 'udf_nospark.count_char' LANGUAGE PYTHON;
        SELECT cc(s, 'a') AS k, COUNT(*) FROM t GROUP BY cc(s, 'a');
        """)
    code = (
        "import sys; sys.modules['pyspark'] = None\n"
        "from repl.cli import main\n"
        f"rc = main(['lint', {str(f)!r}, '--format', 'json'])\n"
        "assert not [m for m in sys.modules if m.startswith(('pyspark', 'py4j'))], 'spark imported'\n"
        "sys.exit(rc)\n"
    )
    env = {**os.environ, "SQLENGINE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert [d["code"] for d in json.loads(proc.stdout)] == ["SE101"]


def test_a_function_is_found_beside_the_file_that_created_it(tmp_path):
    """CREATE FUNCTION in lib/defs.sql, the call in the shell (no file): the module is looked for
    beside defs.sql too; a relative 'python.files' is relative to the file that SETs it."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "udf_beside.py").write_text(MODULE)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "udf_set_there.py").write_text(MODULE)
    defs = tmp_path / "lib" / "defs.sql"
    defs.write_text(DDL + textwrap.dedent("""\
        CREATE TEMPORARY FUNCTION cc AS 'udf_beside.count_char' LANGUAGE PYTHON;
        SET 'python.files' = '../other/udf_set_there.py';
        CREATE TEMPORARY FUNCTION cc2 AS 'udf_set_there.count_char' LANGUAGE PYTHON;
        """))
    session = PlannerSession(Catalog.in_memory())
    for stmt in parse_script(defs.read_text(), str(defs)).statements:
        session.execute(stmt)
    assert session.settings["python.files"] == str(tmp_path / "other" / "udf_set_there.py")
    (stmt,) = parse_script("SELECT cc(s, 'a') AS k, cc2(s, 'b') AS k2 FROM t").statements
    outcome = session.execute(stmt)
    assert [f.type_sql for f in outcome.plans[0].fields] == ["BIGINT", "BIGINT"]


JAR = ROOT / "tests" / "fixtures" / "udf" / "udfs.jar"  # tests/fixtures/udf/build.sh


def test_a_jvm_function_is_typed_from_its_class_file_without_a_jvm(tmp_path):
    f = tmp_path / "job.sql"
    f.write_text(DDL + textwrap.dedent(f"""\
        CREATE TEMPORARY FUNCTION cc AS 'com.example.CountChar' LANGUAGE JAVA USING JAR '{JAR}';
        CREATE TEMPORARY FUNCTION plain AS 'com.example.NotAUdf' LANGUAGE JAVA USING JAR '{JAR}';
        CREATE TEMPORARY FUNCTION gone AS 'com.example.Gone' LANGUAGE JAVA USING JAR '{JAR}';
        CREATE TEMPORARY FUNCTION nojar AS 'com.example.CountChar' LANGUAGE JAVA USING JAR 'missing.jar';
        SELECT cc(s, 'a') AS k FROM t;
        SELECT plain(s) FROM t;
        SELECT gone(s) FROM t;
        SELECT nojar(s, 'a') FROM t;
        SELECT cc(s) FROM t;
        """))
    *_, ok, plain, gone, nojar, arity = _run(f)
    assert [x.type_sql for x in ok.plans[0].fields] == ["BIGINT"] and not ok.analysis.problems
    assert plain.message == (
        "Function `plain`: 'com.example.NotAUdf' does not implement one of Spark's "
        "org.apache.spark.sql.api.java.UDF1..UDF22 interfaces"
    )
    assert gone.message == f"Function `gone`: no class com.example.Gone in '{JAR}'"
    assert nojar.message == "Function `nojar`: jar 'missing.jar' not found"
    assert (arity.line, arity.column, arity.message) == (
        10, 8, "Function `cc` ('com.example.CountChar') takes 2 arguments, not 1"
    )


def test_an_aggregate_function_without_retract_is_refused_where_rows_are_taken_back(tmp_path):
    """Over an updating input and in a bounded OVER frame (Flink's job fails there at run time);
    over an insert-only input, in a window (an event-time SESSION too) and in an unbounded frame it runs."""
    f = _script(tmp_path, "udf_retract", """\
        CREATE TEMPORARY FUNCTION money AS 'udf_retract.Money' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION wavg AS 'udf_retract.Wavg' LANGUAGE PYTHON;
        CREATE TABLE e (k STRING, d DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen');
        SELECT k, money(d) AS m FROM e GROUP BY k;
        SELECT money(m) FROM (SELECT k, money(d) AS m FROM e GROUP BY k);
        SELECT wavg(n) FROM (SELECT k, COUNT(*) AS n FROM e GROUP BY k);
        SELECT k, money(d) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM e;
        SELECT k, money(d) OVER (PARTITION BY k ORDER BY ts) FROM e;
        SELECT k, window_start, money(d) FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;
        SELECT k, window_start, money(d) FROM TABLE(SESSION(TABLE e PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;
        SELECT k, window_start, money(d), LISTAGG(k) FROM TABLE(SESSION(TABLE e PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end;
        """)
    found = [(d.line, d.column, d.code, d.message) for d in lint_paths([f]).diagnostics if d.code == "SE301"]
    assert [x[:3] for x in found] == [(6, 8, "SE301"), (8, 11, "SE301"), (12, 136, "SE301")]
    # the sessions a row bridges merge their accumulators: LISTAGG's cannot be merged yet
    assert "LISTAGG in this event-time SESSION window cannot run yet: sqlengine's window operator runs it (a Python aggregate function is beside it)" in found[2][3]
    assert ("the aggregate function `money` ('udf_retract.Money') has no retract method, which it needs here: its input "
            "updates or retracts rows") in found[0][3]
    assert "its OVER frame takes each row back when the row leaves it" in found[1][3]
    changelog = [[p.changelog for p in o.analysis.physical.values()] for o in _run(f)[4:] if o.analysis is not None]
    assert changelog[:6] == [[True], [True, True], [True, True], [True], [True], [True]]
