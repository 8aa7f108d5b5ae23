"""Where jobs keep their checkpoints (sqlengine/checkpoint_root.py): under the home, or under
Flink's 'execution.checkpointing.dir' (--checkpoint-root), a directory a cluster's machines share
or any Hadoop URI (read and written through the JVM: tests/hdfs/, tests/repl/test_shell_hdfs.py),
but not over Spark Connect, whose client has no JVM; a cluster's job whose checkpoint is on this
machine only says so. The jobs themselves: tests/sqlengine/test_state_backend.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlengine import checkpoint_root
from sqlengine.storage import HadoopPath


def test_a_path_or_a_file_uri_names_the_directory(tmp_path: Path) -> None:
    assert checkpoint_root.directory(f"file://{tmp_path}/ck") == tmp_path / "ck"
    assert checkpoint_root.directory(f"file:{tmp_path}/ck") == tmp_path / "ck"
    assert checkpoint_root.root({}, tmp_path / "home") == tmp_path / "home" / "checkpoints"
    assert checkpoint_root.root({"state.checkpoints.dir": str(tmp_path / "old")}, tmp_path) == tmp_path / "old"
    assert checkpoint_root.setting(str(tmp_path)) == {"execution.checkpointing.dir": str(tmp_path)}


def test_a_hadoop_uri_names_a_directory_there(tmp_path: Path) -> None:
    assert checkpoint_root.setting("hdfs://nn:8020/ck/") == {"execution.checkpointing.dir": "hdfs://nn:8020/ck/"}
    root = checkpoint_root.root({"execution.checkpointing.dir": "hdfs://nn:8020/ck/"}, tmp_path)
    assert root == HadoopPath("hdfs://nn:8020/ck") and str(root / "job-1" / "q0") == "hdfs://nn:8020/ck/job-1/q0"
    assert (root / "job-1").name == "job-1" and (root / "job-1").parent == root
    top = HadoopPath("hdfs://nn:8020/")  # a file system's root keeps its slash
    assert str(top) == "hdfs://nn:8020/" and top.name == "" and top.parent == top
    assert str(top / "ck") == "hdfs://nn:8020/ck" and (top / "ck").parent == top
    assert str(HadoopPath("hdfs:///ck//")) == "hdfs:///ck" and str(HadoopPath("hdfs:///ck").parent) == "hdfs:///"
    assert str(checkpoint_root.savepoint_root({"state.savepoints.dir": "s3a://bucket/sp"}, tmp_path)) == "s3a://bucket/sp"


def test_a_hadoop_uri_is_refused_over_spark_connect_and_a_uri_of_no_directory_everywhere(tmp_path: Path) -> None:
    with pytest.raises(checkpoint_root.NotLocal, match=r"'execution.checkpointing.dir' = 'hdfs://nn:8020/ck': over Spark Connect "
                       r"\(--remote\) checkpoints and savepoints must be on a directory mounted here and on the server .* "
                       r"reads hdfs:// through a JVM this process does not have"):
        checkpoint_root.root({"execution.checkpointing.dir": "hdfs://nn:8020/ck"}, tmp_path, remote=True)
    assert checkpoint_root.root({"execution.checkpointing.dir": str(tmp_path)}, tmp_path, remote=True) == tmp_path
    with pytest.raises(checkpoint_root.NotLocal, match=r"'execution.checkpointing.dir' = 'hdfs://' is not a directory"):
        checkpoint_root.setting("hdfs://")
    with pytest.raises(checkpoint_root.NotLocal, match=r"'state.savepoints.dir' = '1x://a/b' is not a directory"):
        checkpoint_root.savepoint_root({"state.savepoints.dir": "1x://a/b"}, tmp_path)


def test_a_cluster_elsewhere_with_checkpoints_on_this_machine_is_told(tmp_path: Path) -> None:
    note = checkpoint_root.local_only_note("spark://10.0.0.5:7077", {}, tmp_path)
    assert note is not None and f"under {tmp_path / 'checkpoints'}, on this machine only" in note
    assert checkpoint_root.local_only_note("yarn", {}, tmp_path) is not None
    # local mode, a cluster on this machine, or a directory given: nothing to say
    assert checkpoint_root.local_only_note("local[2]", {}, tmp_path) is None
    assert checkpoint_root.local_only_note("spark://127.0.0.1:7077", {}, tmp_path) is None
    assert checkpoint_root.local_only_note("yarn", {"execution.checkpointing.dir": "/shared"}, tmp_path) is None
