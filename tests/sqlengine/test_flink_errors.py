"""Where Flink fails the job, so does sqlengine, and the user reads one line saying why (no
Spark plan, no Java trace): a CAST of text Flink cannot read, an integer division or MOD by
zero. TRY_CAST gives NULL for the same text. (The function suite holds Flink's verdicts.)"""

from __future__ import annotations

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import Engine
from sqlengine.errors import describe
from sqlengine.jobs import Status
from tests.sqlengine.helpers import Sql, write_json

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    runner = Sql(Engine(home=tmp_path_factory.mktemp("errors"), spark=spark))
    data = tmp_path_factory.mktemp("errors-data")
    write_json(data / "t.json", [{"id": 1, "s": "12", "d": 3}, {"id": 2, "s": "abc", "d": 0}])
    runner.ddl(f"CREATE TABLE t (id INT, s STRING, d INT) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json')")
    return runner


def _failure(sql: Sql, query: str, mode: str) -> str:
    sql.mode(mode)
    (stmt,) = parse_script(query).statements
    job = sql.engine.start(sql.engine.plan(stmt))
    assert job.wait(120)
    assert job.status == Status.FAILED and job.error_detail is not None, (job.status, query)
    return describe(job.error_detail)  # what the shell, `run` and SHOW JOBS print


@pytest.mark.parametrize("mode", ["batch", "streaming"])
@pytest.mark.parametrize(("query", "words"), [
    ("SELECT id, CAST(s AS INT) FROM t", "Cannot read 'abc' as INT (CAST fails on text it cannot read, as in Flink; TRY_CAST gives NULL)"),
    ("SELECT id, 7 / d FROM t", "Division by zero"),
    ("SELECT id, MOD(id, d) FROM t", "Division by zero"),
])
def test_the_job_fails_with_one_line_saying_why(sql: Sql, mode: str, query: str, words: str) -> None:
    error = _failure(sql, query, mode)
    assert words in error
    assert "Traceback" not in error and "org.apache" not in error and "\n\tat " not in error


def test_try_cast_gives_null_for_the_same_text(sql: Sql) -> None:
    assert sorted(sql.rows("SELECT id, TRY_CAST(s AS INT) FROM t", "streaming")) == [(1, 12), (2, None)]
