"""State backends and SHOW STATE on real Spark: 'state.backend.type' chooses the state store of a
new checkpoint (RocksDB with changelog checkpointing), a resumed checkpoint keeps its own and the
job says so, and the state read back from a checkpoint counts what each operator keeps. Where the
checkpoints go: the home, or 'execution.checkpointing.dir' (sqlengine/checkpoint_root.py)."""

from __future__ import annotations

import json
import re

import pytest

from planner.errors import SqlError
from repl.client import ClientError, show_state
from sqlengine import checkpoint_root, state_backend
from sqlengine.engine import Engine
from sqlengine.state_report import read_state
from tests.sqlengine.helpers import Sql

pytestmark = [pytest.mark.spark, pytest.mark.slow]

KEYS = 13


@pytest.fixture
def sql(spark, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.json").write_text("".join(json.dumps({"k": f"k{i % KEYS}", "v": i}) + "\n" for i in range(200)))
    s = Sql(Engine(home=tmp_path / "home", spark=spark))
    s.ddl(f"CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');"
          "CREATE TABLE counts (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');"
          "CREATE TABLE pairs (k STRING, v INT) WITH ('connector' = 'blackhole');")
    return s


def test_rocksdb_with_changelog_checkpoints_then_a_resume_keeps_it_and_says_so(sql):
    sql.ddl("SET 'pipeline.name' = 'counts'; SET 'state.backend.type' = 'rocksdb';")
    insert = "INSERT INTO counts SELECT k, COUNT(*) FROM src GROUP BY k"
    job = sql.job(insert, "streaming")
    q0 = job.checkpoint / "q0"
    assert state_backend.in_checkpoint(q0) == state_backend.ROCKSDB
    assert any(p.suffix == ".changelog" for p in (q0 / "state").rglob("*")), "RocksDB without changelog checkpoints"
    assert job.notes == ()
    (entry,) = read_state(sql.engine.spark, job.checkpoint).operators
    assert (entry.operator, entry.entries, entry.batch) == ("stateStoreSave", KEYS, 0)

    sql.ddl("SET 'state.backend.type' = 'hashmap'; SET 'execution.runtime-mode' = 'streaming';")
    again = sql.engine.start(sql.outcome(insert))
    again.wait()
    (note,) = again.notes
    assert "whose state is kept in 'rocksdb'" in note and "'hashmap' applies to a new checkpoint only" in note


def test_show_state_counts_each_operators_entries(sql):
    sql.ddl("SET 'pipeline.name' = 'joined';")
    join = sql.job("INSERT INTO pairs SELECT a.k, b.v FROM src a JOIN src b ON a.k = b.k AND a.v = b.v + 13", "streaming")
    report = read_state(sql.engine.spark, join.checkpoint)
    assert report.backend == "hashmap"
    assert [(o.store, o.entries) for o in report.operators] == [("left", 200), ("right", 200)]
    assert report.operators[0].bytes and report.operators[1].bytes is None  # the operator's files, once

    top2 = "INSERT INTO pairs SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src) WHERE rn <= 2"
    sql.ddl("SET 'pipeline.name' = 'top2'; SET 'sqlengine.changelog.jvm' = 'false';")
    top = sql.job(top2, "streaming")
    report = read_state(sql.engine.spark, top.checkpoint)
    (entry,) = report.operators
    # a changelog operator in Python keeps one entry per bucket of keys (no more buckets than
    # keys), in RocksDB
    assert entry.operator.startswith("transformWithState") and entry.store == "bucket" and 1 <= entry.entries <= KEYS
    assert report.backend == "rocksdb"
    # on the JVM: one entry per key, in the store the session asked for
    sql.ddl("SET 'pipeline.name' = 'top2-jvm'; SET 'sqlengine.changelog.jvm' = 'true';")
    report = read_state(sql.engine.spark, sql.job(top2, "streaming").checkpoint)
    (entry,) = report.operators
    assert (entry.operator, entry.entries, report.backend) == ("flatMapGroupsWithState", KEYS, "hashmap"), entry

    # by job id, or by checkpoint name (a job of an earlier session)
    assert re.search(r"symmetricHashJoin\s*\|\s*left\s*\|\s*2\s*\|\s*0\s*\|\s*200\s*\|", show_state(sql.engine, join.id))
    assert "Checkpoint 'top2'" in show_state(Engine(home=sql.engine.home, spark=sql.engine.spark), "top2")
    with pytest.raises(ClientError, match=r"no checkpoint 'nope' under .* \(checkpoints: joined, top2, top2-jvm\)"):
        show_state(sql.engine, "nope")


def test_jobs_keep_their_checkpoints_under_the_directory_set(sql, tmp_path):
    shared = tmp_path / "shared"
    sql.ddl(f"SET 'execution.checkpointing.dir' = 'file://{shared}'; SET 'pipeline.name' = 'counts';")
    job = sql.job("INSERT INTO counts SELECT k, COUNT(*) FROM src GROUP BY k", "streaming")
    assert job.checkpoint == shared / "counts" and (shared / "counts" / "q0" / "offsets" / "0").is_file()
    assert not (sql.engine.home / "checkpoints").exists()
    # SHOW STATE finds it by name in a later session with the same setting
    later = Engine(home=sql.engine.home, spark=sql.engine.spark, settings=checkpoint_root.setting(f"file://{shared}"))
    assert f"Checkpoint 'counts': checkpoint {shared / 'counts'}" in show_state(later, "counts")

    # a SELECT's checkpoint: beside them, and this session's removed when it ends
    select = sql.job("SELECT k, COUNT(*) FROM src GROUP BY k", "streaming")
    assert select.checkpoint.parent == shared / "tmp" and select.checkpoint.is_dir()
    other = shared / "tmp" / "select-of-another-session"
    other.mkdir()
    sql.engine.cleanup_tmp()
    assert not select.checkpoint.exists() and other.is_dir()


def test_a_checkpoint_directory_on_a_file_system_spark_has_no_jar_for_starts_nothing(sql):
    sql.ddl("SET 'execution.checkpointing.dir' = 's3a://bucket/ck';")
    # a Hadoop URI is read through Spark's JVM, which has no S3 file system without hadoop-aws
    with pytest.raises(SqlError, match=r"s3a://bucket/ck/counts-\w+: Spark's JVM has no Hadoop file system for s3a:// "
                       r"\(java.lang.ClassNotFoundException: Class org.apache.hadoop.fs.s3a.S3AFileSystem not found\); put the jar"):
        sql.job("INSERT INTO counts SELECT k, COUNT(*) FROM src GROUP BY k", "streaming")
    assert sql.engine.job_list() == []
