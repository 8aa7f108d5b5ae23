"""A filesystem sink's directory loses no rows to Spark's commit log: a second streaming job into
it, a batch INSERT into a streaming job's directory, a streaming job into a directory of earlier
files, and two sinks of one job on one directory are refused before anything runs
(sqlengine.connectors.file_sink_owner). The units use real directories shaped as Spark leaves them;
the last tests run real jobs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import SqlError
from sqlengine.connectors.file_sink_owner import (
    OWNER,
    SinkDir,
    SinkDirectoryTaken,
    check_for_batch,
    claim_for_streaming,
    same_directory,
)
from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql, read_json_dir, write_json


def _spark_log(directory: Path, batches: int) -> None:
    (directory / "_spark_metadata").mkdir(parents=True)
    for b in range(batches):
        (directory / "_spark_metadata" / str(b)).write_text("v1\n")


def _planned(checkpoint: Path, batches: int) -> None:
    (checkpoint / "offsets").mkdir(parents=True)
    for b in range(batches):
        (checkpoint / "offsets" / str(b)).write_text("v1\n")


def test_a_fresh_directory_is_claimed_and_its_writer_may_resume(tmp_path):
    out, ck = tmp_path / "out", tmp_path / "ck" / "q0"
    claim_for_streaming(SinkDir(out, ck), from_savepoint=False)
    assert json.loads((out / OWNER).read_text()) == {"checkpoint": str(ck.resolve())}
    # the writer committed batches 0-2 and planned 3 (killed before the checkpoint's commit)
    _spark_log(out, 3)
    _planned(ck, 4)
    claim_for_streaming(SinkDir(out, ck), from_savepoint=False)


def test_another_streaming_job_is_refused_with_the_batches_it_would_lose(tmp_path):
    out = tmp_path / "out"
    claim_for_streaming(SinkDir(out, tmp_path / "a" / "q0"), from_savepoint=False)
    _spark_log(out, 5)
    with pytest.raises(SinkDirectoryTaken, match=r"another streaming job \(checkpoint .*a/q0\).*skip this job's batches 0 to 4"):
        claim_for_streaming(SinkDir(out, tmp_path / "b" / "q0"), from_savepoint=False)


def test_a_writer_whose_checkpoint_was_removed_is_refused(tmp_path):
    out, ck = tmp_path / "out", tmp_path / "ck" / "q0"
    claim_for_streaming(SinkDir(out, ck), from_savepoint=False)
    _spark_log(out, 2)
    with pytest.raises(SinkDirectoryTaken, match=r"an earlier run of this job whose checkpoint was removed.*batches 0 to 1"):
        claim_for_streaming(SinkDir(out, ck), from_savepoint=False)
    # from a savepoint the skipped batches are a note (savepoints.file_sink_ahead), not a refusal
    claim_for_streaming(SinkDir(out, ck), from_savepoint=True)


def test_a_log_of_unknown_origin_ahead_of_the_checkpoint_is_refused(tmp_path):
    out = tmp_path / "out"
    _spark_log(out, 1)
    with pytest.raises(SinkDirectoryTaken, match="another streaming job"):
        claim_for_streaming(SinkDir(out, tmp_path / "ck" / "q0"), from_savepoint=False)


def test_earlier_files_would_vanish_behind_a_new_commit_log(tmp_path):
    out = tmp_path / "out"
    write_json(out / "day=1" / "part-0.json", [{"a": 1}])
    (out / "_SUCCESS").write_text("")
    with pytest.raises(SinkDirectoryTaken, match="already holds 1 file not written by a streaming job"):
        claim_for_streaming(SinkDir(out, tmp_path / "ck" / "q0"), from_savepoint=False)
    assert not (out / OWNER).exists()


def test_a_batch_insert_into_a_streaming_jobs_directory_is_refused_unless_it_overwrites(tmp_path):
    out = tmp_path / "out"
    check_for_batch(out, overwrite=False)  # nothing there yet
    _spark_log(out, 1)
    with pytest.raises(SinkDirectoryTaken, match="the rows of a batch INSERT would not be seen"):
        check_for_batch(out, overwrite=False)
    check_for_batch(out, overwrite=True)


def test_two_sinks_of_one_job_on_one_directory():
    assert same_directory([("a", Path("/x")), ("b", Path("/y"))]) is None
    assert "`a` and `c` both write the directory /x" in (same_directory([("a", Path("/x")), ("b", Path("/y")), ("c", Path("/x"))]) or "")


# -- real jobs --------------------------------------------------------------------------------


@pytest.fixture
def sql(spark, tmp_path) -> Sql:
    runner = Sql(Engine(home=tmp_path / "home", spark=spark))
    write_json(tmp_path / "in" / "part-0.json", [{"k": i} for i in range(3)])
    runner.ddl(
        f"CREATE TABLE src (k INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'in'}', 'format' = 'json');"
        f"CREATE TABLE sink1 (k INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'out'}', 'format' = 'json');"
        f"CREATE TABLE sink2 (k INT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'out'}', 'format' = 'json');"
    )
    return runner


def _refusal(sql: Sql, text: str, mode: str) -> SqlError:
    with pytest.raises(SqlError) as info:
        sql.job(text, mode)
    return info.value


@pytest.mark.spark
def test_a_second_streaming_job_into_a_written_directory_is_refused_and_the_first_jobs_rows_stay(sql, spark, tmp_path):
    sql.job("INSERT INTO sink1 SELECT k FROM src", "streaming")
    err = _refusal(sql, "INSERT INTO sink1 SELECT k + 10 FROM src", "streaming")
    assert "is written by another streaming job" in err.message and "skip this job's batches 0 to 0" in err.message
    assert (err.line, err.column) == (1, 13)  # at the sink table
    err = _refusal(sql, "INSERT INTO sink1 SELECT k + 20 FROM src", "batch")
    assert "the rows of a batch INSERT would not be seen" in err.message
    assert sorted(read_json_dir(spark, tmp_path / "out", "k INT")) == [(0,), (1,), (2,)]


@pytest.mark.spark
def test_a_statement_set_writing_one_directory_twice_is_refused(sql):
    text = "EXECUTE STATEMENT SET BEGIN INSERT INTO sink1 SELECT k FROM src; INSERT INTO sink2 SELECT k FROM src; END"
    err = _refusal(sql, text, "streaming")
    assert "`sink1` and `sink2` both write the directory" in err.message
    assert err.column == text.index("sink2") + 1
