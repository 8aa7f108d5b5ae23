"""Python user functions on Spark: scalar functions (row at a time on Arrow, and vectorized),
NULL in and out, a declared result type, a function raising on a row (one positioned line), a
table function through LATERAL TABLE (inner and LEFT), aggregate functions (grouped, global, over
a frame; their windows are in the conformance suite, l01-l04), and Nexmark q14 with count_char
written in Python (examples/udf/nexmark_udfs.py) — each streaming equal to batch."""

from __future__ import annotations

import os
import re
from decimal import Decimal
from pathlib import Path

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.errors import describe
from tests.sqlengine.helpers import Sql, multiset, write_json

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
NEXMARK = ROOT / "tests" / "fixtures" / "nexmark"

# a module of its own name: Spark's Python workers import it from the file the job ships
MODULE = """\
from __future__ import annotations
from collections.abc import Iterator
from decimal import Decimal
from sqlengine.udf import function

def count_char(s: str | None, c: str) -> int | None:
    return None if s is None else s.count(c)

def twice(n: int | None) -> int | None:
    return None if n is None else 2 * n

@function(result="DECIMAL(10, 2)")
def half(n: int | None) -> Decimal | None:
    return None if n is None else Decimal(n) / 2

@function(result="BIGINT", vectorized=True)
def length(s):
    return s.str.len()

def fragile(s: str | None) -> int:
    return len(s)

def keys(m: dict[str, int] | None) -> list[str] | None:
    return None if m is None else sorted(m)

def words(s: str | None) -> Iterator[tuple[str, int]]:
    for w in (s or "").split():
        yield w, len(w)

class Longest:
    # the longest string (the first of equal length); no retract
    def create_accumulator(self):
        return [None]

    def accumulate(self, acc, s: str | None) -> None:
        if s is not None and (acc[0] is None or len(s) > len(acc[0])):
            acc[0] = s

    def get_value(self, acc) -> str | None:
        return acc[0]

class SumSquares:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, n: int | None) -> None:
        if n is not None:
            acc[0] += n * n
            acc[1] += 1

    def retract(self, acc, n: int | None) -> None:
        if n is not None:
            acc[0] -= n * n
            acc[1] -= 1

    def get_value(self, acc) -> int | None:
        if acc[1] and acc[0] > 1000:
            raise OverflowError("too large")
        return acc[0] if acc[1] else None
"""

ROWS = [
    {"id": 1, "s": "a banana", "n": 3},
    {"id": 2, "s": "cab", "n": None},
    {"id": 3, "s": None, "n": 7},
    {"id": 4, "s": "", "n": 0},
]


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    root = tmp_path_factory.mktemp("udf")
    (root / "udf_spark_tests.py").write_text(MODULE)
    data = write_json(root / "rows" / "part-0.json", ROWS)
    engine = Engine(home=root / "home", spark=spark)
    s = Sql(engine)
    s.ddl(f"""
        SET 'python.files' = '{root / "udf_spark_tests.py"}';
        CREATE TABLE r (id INT, s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = '{data.parent}', 'format' = 'json');
        CREATE TEMPORARY FUNCTION cc AS 'udf_spark_tests.count_char' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION twice AS 'udf_spark_tests.twice' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION half AS 'udf_spark_tests.half' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION len_v AS 'udf_spark_tests.length' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION fragile AS 'udf_spark_tests.fragile' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION words AS 'udf_spark_tests.words' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION keys_of AS 'udf_spark_tests.keys' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION longest AS 'udf_spark_tests.Longest' LANGUAGE PYTHON;
        CREATE TEMPORARY FUNCTION sumsq AS 'udf_spark_tests.SumSquares' LANGUAGE PYTHON;
    """)
    return s


def test_scalar_functions_streaming_equals_batch_with_nulls(sql: Sql):
    query = "SELECT id, cc(s, 'a') AS a, twice(n) AS t, half(n) AS h, len_v(s) AS l FROM r"
    streaming, batch = sql.both(query)
    assert streaming == batch
    assert batch == multiset([
        (1, 4, 6, Decimal("1.50"), 8),
        (2, 1, None, None, 3),
        (3, None, 14, Decimal("3.50"), None),
        (4, 0, 0, Decimal("0.00"), 0),
    ])


def test_a_map_arrives_as_a_dict_and_a_list_leaves_as_an_array(sql: Sql, tmp_path):
    data = write_json(tmp_path / "maps" / "part-0.json", [{"id": 1, "m": {"b": 1, "a": 2}}, {"id": 2, "m": None}])
    sql.ddl(f"""CREATE TABLE maps (id INT, m MAP<STRING, INT>)
                WITH ('connector' = 'filesystem', 'path' = '{data.parent}', 'format' = 'json')""")
    streaming, batch = sql.both("SELECT id, keys_of(m) AS k FROM maps")
    assert streaming == batch == multiset([(1, ["a", "b"]), (2, None)])


def test_a_function_in_a_filter_and_a_group_key(sql: Sql):
    streaming, batch = sql.both("SELECT cc(s, 'a') AS a, COUNT(*) AS c FROM r WHERE twice(id) > 2 GROUP BY cc(s, 'a')")
    assert streaming == batch == multiset([(1, 1), (None, 1), (0, 1)])


def _failure(sql: Sql, mode: str, text: str, path: str) -> str:
    """The one line a job of ``text`` (read from ``path``) fails with."""
    sql.mode(mode)
    (stmt,) = parse_script(text, path).statements
    job = sql.engine.start(sql.engine.plan(stmt))
    job.wait()
    assert job.error_detail is not None
    return describe(job.error_detail)


def test_a_function_raising_on_a_row_fails_the_job_with_one_positioned_line(sql: Sql):
    line = _failure(sql, "streaming", "SELECT id,\n  fragile(s) AS k FROM r", "job.sql")
    assert "\n" not in line and "Traceback" not in line
    assert re.fullmatch(r"job\.sql:2:3: fragile\(NULL\) raised TypeError: object of type 'NoneType' has no len\(\)", line), line


def test_aggregate_functions_streaming_equals_batch(sql: Sql):
    """A Python aggregate function beside a built-in one: grouped, global, and global over no rows
    (batch mode has one row then, as Flink's batch aggregation; a stream has none)."""
    streaming, batch = sql.both("SELECT n > 2 AS big, longest(s) AS l, sumsq(n) AS q, COUNT(*) AS c FROM r GROUP BY n > 2")
    assert streaming == batch == multiset([(True, "a banana", 58, 2), (False, "", 0, 1), (None, "cab", None, 1)])
    streaming, batch = sql.both("SELECT longest(s) AS l, sumsq(n) AS q, COUNT(*) AS c FROM r")
    assert streaming == batch == multiset([("a banana", 58, 4)])
    streaming, batch = sql.both("SELECT longest(s) AS l, COUNT(*) AS c FROM r WHERE id > 9")
    assert (streaming, batch) == (multiset([]), multiset([(None, 0)]))


def test_an_aggregate_function_over_a_frame_streaming_equals_batch(sql: Sql, tmp_path):
    """A bounded OVER frame takes each row back as it leaves (retract); Flink cannot plan a Python
    aggregate function in OVER, so batch mode is the reference here."""
    rows = [{"k": k, "n": n, "ts": f"2026-01-01 00:00:{i:02d}"} for i, (k, n) in enumerate([("a", 1), ("b", 2), ("a", 3), ("a", 4), ("b", 5)])]
    data = write_json(tmp_path / "ev" / "part-0.json", rows)
    sql.ddl(f"""CREATE TABLE ev (k STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
                WITH ('connector' = 'filesystem', 'path' = '{data.parent}', 'format' = 'json')""")
    query = "SELECT k, n, sumsq(n) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS q FROM ev"
    streaming, batch = sql.both(query)
    assert streaming == batch == multiset([("a", 1, 1), ("a", 3, 10), ("a", 4, 25), ("b", 2, 4), ("b", 5, 29)])


def test_an_aggregate_function_raising_fails_the_job_with_one_positioned_line(sql: Sql):
    line = _failure(sql, "streaming", "SELECT id,\n  sumsq(id * 100) AS q FROM r GROUP BY id", "agg.sql")
    assert line == "agg.sql:2:3: sumsq: get_value raised OverflowError: too large", line


def test_table_function_streaming_equals_batch(sql: Sql):
    streaming, batch = sql.both("SELECT id, w, k FROM r, LATERAL TABLE(words(s)) AS T(w, k)")
    assert streaming == batch == multiset([(1, "a", 1), (1, "banana", 6), (2, "cab", 3)])
    streaming, batch = sql.both("SELECT id, f0 FROM r LEFT JOIN LATERAL TABLE(words(s)) ON TRUE")
    assert streaming == batch == multiset([(1, "a"), (1, "banana"), (2, "cab"), (3, None), (4, None)])


NEXMARK_VARIABLES = {
    "NEXMARK_TABLE": "datagen", "TPS": "100", "EVENTS_NUM": "3000", "PERSON_PROPORTION": "1",
    "AUCTION_PROPORTION": "3", "BID_PROPORTION": "46",
}


def test_nexmark_q14_with_a_python_count_char_streaming_equals_batch(spark, tmp_path):
    engine = Engine(home=tmp_path / "home", spark=spark, variables=NEXMARK_VARIABLES)
    sql = Sql(engine)
    sql.ddl((NEXMARK / "ddl_gen.sql").read_text())
    sql.ddl((NEXMARK / "ddl_views.sql").read_text())
    q14 = ROOT / "examples" / "udf" / "nexmark_q14.sql"  # count_char from nexmark_udfs.py beside it
    *ddl, insert = parse_script(q14.read_text(), str(q14)).statements
    for stmt in ddl:
        engine.plan(stmt)
    query = re.sub(r"^\s*INSERT\s+INTO\s+\w+\s*", "", insert.text, flags=re.I)
    streaming, batch = sql.both(query)
    assert streaming == batch
    rows = list(batch.elements())
    assert len(rows) > 5
    for row in rows:  # extra, c_counts
        assert row[-1] == (row[-2] or "").count("c")


def test_an_edited_function_runs_as_edited_in_the_next_job(spark, tmp_path):
    """Spark's Python workers outlive a job, and Spark ships a file of a given name once: the
    function's code travels by value with each job, so the edit is what runs."""
    module = tmp_path / "udf_edited.py"
    module.write_text("def bump(n: int) -> int:\n    return n + 1\n")
    engine = Engine(home=tmp_path / "home", spark=spark)
    sql = Sql(engine)
    sql.ddl(f"""
        SET 'python.files' = '{module}';
        CREATE TEMPORARY FUNCTION bump AS 'udf_edited.bump' LANGUAGE PYTHON;
    """)
    query = "SELECT bump(x) AS y FROM (VALUES (1), (2)) AS t(x)"
    assert sql.both(query) == (multiset([(2,), (3,)]),) * 2
    module.write_text("def bump(n: int) -> int:\n    return n + 10\n")
    os.utime(module, (module.stat().st_atime, module.stat().st_mtime + 5))  # a new mtime, whatever the clock's resolution
    assert sql.both(query) == (multiset([(11,), (12,)]),) * 2


def test_a_jvm_function_from_its_jar_streaming_equals_batch(sql: Sql):
    """A class implementing Spark's UDF2 (tests/fixtures/udf/src), loaded from USING JAR; its
    INT argument is cast to the String its class takes."""
    jar = ROOT / "tests" / "fixtures" / "udf" / "udfs.jar"
    sql.ddl(f"CREATE TEMPORARY FUNCTION cc_java AS 'com.example.CountChar' LANGUAGE JAVA USING JAR '{jar}'")
    streaming, batch = sql.both("SELECT id, cc_java(s, 'a') AS a, cc_java(n, '7') AS b FROM r")
    assert streaming == batch == multiset([(1, 4, 0), (2, 1, 0), (3, 0, 1), (4, 0, 0)])


def test_a_jvm_function_throwing_fails_the_job_with_one_positioned_line(sql: Sql):
    jar = ROOT / "tests" / "fixtures" / "udf" / "udfs.jar"
    sql.ddl(f"CREATE TEMPORARY FUNCTION cc_throws AS 'com.example.CountChar' LANGUAGE JAVA USING JAR '{jar}'")
    line = _failure(sql, "batch", "SELECT id, cc_throws(s, '') AS k FROM r", "jvm.sql")
    assert line == "jvm.sql:1:12: cc_throws(...) threw java.lang.StringIndexOutOfBoundsException: String index out of range: 0", line
