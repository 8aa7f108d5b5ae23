"""Where jobs keep their checkpoints (sqlengine/checkpoint_root.py): under the home, or under
Flink's 'execution.checkpointing.dir' (--checkpoint-root), a directory a cluster's machines share.
Another file system's URI is refused before a job starts; a cluster's job whose checkpoint is on
this machine only says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.errors import SqlError
from repl.client import show_state
from sqlengine import checkpoint_root
from sqlengine.engine import Engine
from tests.sqlengine.helpers import Sql


def test_a_path_or_a_file_uri_names_the_directory(tmp_path: Path) -> None:
    assert checkpoint_root.directory(f"file://{tmp_path}/ck") == tmp_path / "ck"
    assert checkpoint_root.directory(f"file:{tmp_path}/ck") == tmp_path / "ck"
    assert checkpoint_root.root({}, tmp_path / "home") == tmp_path / "home" / "checkpoints"
    assert checkpoint_root.root({"state.checkpoints.dir": str(tmp_path / "old")}, tmp_path) == tmp_path / "old"
    assert checkpoint_root.setting(str(tmp_path)) == {"execution.checkpointing.dir": str(tmp_path)}


def test_another_file_system_is_refused_with_what_to_do() -> None:
    with pytest.raises(checkpoint_root.NotLocal, match=r"'execution.checkpointing.dir' = 'hdfs://nn:8020/ck': checkpoints "
                       r"must be on a file system mounted here .* cannot do on hdfs://"):
        checkpoint_root.setting("hdfs://nn:8020/ck")


def test_a_cluster_elsewhere_with_checkpoints_on_this_machine_is_told(tmp_path: Path) -> None:
    note = checkpoint_root.local_only_note("spark://10.0.0.5:7077", {}, tmp_path)
    assert note is not None and f"under {tmp_path / 'checkpoints'}, on this machine only" in note
    assert checkpoint_root.local_only_note("yarn", {}, tmp_path) is not None
    # local mode, a cluster on this machine, or a directory given: nothing to say
    assert checkpoint_root.local_only_note("local[2]", {}, tmp_path) is None
    assert checkpoint_root.local_only_note("spark://127.0.0.1:7077", {}, tmp_path) is None
    assert checkpoint_root.local_only_note("yarn", {"execution.checkpointing.dir": "/shared"}, tmp_path) is None


@pytest.fixture
def sql(spark, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.json").write_text("".join(json.dumps({"k": f"k{i % 3}", "v": i}) + "\n" for i in range(30)))
    s = Sql(Engine(home=tmp_path / "home", spark=spark))
    s.ddl(f"CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = '{data}', 'format' = 'json');"
          "CREATE TABLE counts (k STRING, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole');")
    return s


@pytest.mark.spark
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


@pytest.mark.spark
def test_a_checkpoint_directory_on_another_file_system_starts_nothing(sql):
    sql.ddl("SET 'execution.checkpointing.dir' = 's3a://bucket/ck';")
    with pytest.raises(SqlError, match=r"cannot do on s3a://"):
        sql.job("INSERT INTO counts SELECT k, COUNT(*) FROM src GROUP BY k", "streaming")
    assert sql.engine.job_list() == []
