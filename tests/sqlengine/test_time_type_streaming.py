"""TIME in streaming jobs: Spark's stream writer refuses a TIME column (UNSUPPORTED_TIME_TYPE)
that its batch writer takes. A streaming result carries it as text and reads it back per
micro-batch (the same values as batch mode); a text sink (JSON, CSV) writes its text, as batch
mode does; a binary format is refused before the job starts, at the INSERT."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from planner.errors import SqlError
from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, write_json

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def sql(spark, tmp_path_factory) -> Sql:
    runner = Sql(Engine(home=tmp_path_factory.mktemp("time"), spark=spark))
    data = tmp_path_factory.mktemp("time-data")
    write_json(data / "t.json", [{"id": 1, "ts": "2024-03-15 13:45:30.123"}, {"id": 2, "ts": "1999-12-31 23:59:59.999"}])
    runner.ddl(f"CREATE TABLE t (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json')")
    return runner


QUERY = "SELECT id, CAST(ts AS TIME(0)), CAST(ts AS TIME(3)) FROM t"


def test_a_streaming_result_with_time_columns_equals_batch(sql: Sql) -> None:
    want = [(1, dt.time(13, 45, 30), dt.time(13, 45, 30, 123000)), (2, dt.time(23, 59, 59), dt.time(23, 59, 59, 999000))]
    assert sorted(sql.rows(QUERY, "batch")) == want
    assert sorted(sql.rows(QUERY, "streaming")) == want


def _lines(directory: Path) -> list[str]:
    return sorted(line for f in directory.rglob("part-*") for line in f.read_text().splitlines() if line)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_streaming_insert_writes_a_time_as_batch_mode_does(sql: Sql, tmp_path: Path, fmt: str) -> None:
    out = {}
    for mode in ("batch", "streaming"):
        target = tmp_path / mode
        sql.ddl(f"CREATE TEMPORARY TABLE o_{fmt}_{mode} (id INT, tm TIME(0)) WITH ('connector' = 'filesystem', "
                f"'path' = '{target}', 'format' = '{fmt}')")
        sql.job(f"INSERT INTO o_{fmt}_{mode} SELECT id, CAST(ts AS TIME(0)) FROM t", mode)
        out[mode] = _lines(target)
    assert out["streaming"] == out["batch"]
    first = json.loads(out["batch"][0])["tm"] if fmt == "json" else out["batch"][0].split(",")[1]
    assert first == "13:45:30"


def test_a_streaming_insert_of_a_time_into_parquet_is_refused_before_the_job(sql: Sql, tmp_path: Path) -> None:
    sql.ddl(f"CREATE TEMPORARY TABLE o_parquet (id INT, tm TIME(0)) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'p'}', "
            "'format' = 'parquet')")
    before = len(sql.engine.job_list())
    with pytest.raises(SqlError) as err:
        sql.job("INSERT INTO o_parquet SELECT id, CAST(ts AS TIME(0)) FROM t", "streaming")
    assert "cannot write the TIME column `tm` of o_parquet (parquet)" in str(err.value)
    assert len(sql.engine.job_list()) == before
    assert not (tmp_path / "p").exists() or not _lines(tmp_path / "p")
