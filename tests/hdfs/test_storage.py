"""sqlengine.storage on a real HDFS (Hadoop's mini cluster on loopback, scripts/hdfs_cluster.py),
through the JVM of the tests' Spark session: every operation sqlengine does on a checkpoint, the
copies between HDFS and a local directory, and failures as one-line OSErrors."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from sqlengine import storage
from sqlengine.storage import HadoopPath

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture
def base(hdfs, spark) -> HadoopPath:
    return HadoopPath(f"{hdfs}/storage-{uuid.uuid4().hex[:8]}")


def test_a_checkpoints_files_are_written_listed_and_read(base: HadoopPath) -> None:
    assert not base.exists() and not base.is_dir()
    (base / "q0" / "offsets").mkdir(parents=True, exist_ok=True)
    for batch in ("0", "1", "10"):
        (base / "q0" / "offsets" / batch).write_text(f"v1\n{{\"batch\": {batch}}}\n")
    (base / "q1-side0").mkdir(parents=True)
    (base / "plan.json").write_text("{}")
    assert base.is_dir() and not base.is_file() and (base / "plan.json").is_file()
    assert [p.name for p in (base / "q0" / "offsets").iterdir()] == ["0", "1", "10"]
    assert (base / "q0" / "offsets" / "10").read_text() == 'v1\n{"batch": 10}\n'
    assert [str(p) for p in base.glob("q*")] == [f"{base}/q0", f"{base}/q1-side0"]
    assert [str(p) for p in base.glob("q*/offsets/[0-9]")] == [f"{base}/q0/offsets/0", f"{base}/q0/offsets/1"]
    assert list(base.glob("nothing*")) == []
    assert (base / "q0").parent == base and (base / "q0" / "offsets").name == "offsets"
    with pytest.raises(FileExistsError):
        base.mkdir()


def test_a_file_is_replaced_at_once_and_a_tree_removed(base: HadoopPath) -> None:
    base.mkdir(parents=True)
    (base / ".plan.tmp").write_text("new")
    (base / "plan").write_text("old")
    storage.replace(base / ".plan.tmp", base / "plan")
    assert (base / "plan").read_text() == "new" and not (base / ".plan.tmp").exists()
    assert storage.tree_bytes(base) == 3 and storage.tree_bytes(base / "none") == 0
    storage.rmtree(base)
    assert not base.exists()
    storage.rmtree(base)  # already gone: nothing to do
    with pytest.raises(FileNotFoundError, match=f"{base}/plan"):
        (base / "plan").read_text()
    with pytest.raises(FileNotFoundError):
        list(base.iterdir())


def test_a_tree_is_copied_within_hdfs_and_to_and_from_a_local_directory(base: HadoopPath, tmp_path: Path) -> None:
    source = base / "ck"
    (source / "q0" / "state" / "0").mkdir(parents=True)
    (source / "q0" / "state" / "0" / "1.delta").write_text("abc")
    (source / "savepoint.json").write_text("{}")
    storage.copytree(source, base / "copy", leave_out="savepoint.json")
    assert (base / "copy" / "q0" / "state" / "0" / "1.delta").read_text() == "abc"
    assert not (base / "copy" / "savepoint.json").exists()
    local = tmp_path / "local"
    storage.copytree(source, local)
    assert (local / "q0" / "state" / "0" / "1.delta").read_text() == "abc" and (local / "savepoint.json").exists()
    storage.copytree(local, base / "back", leave_out="savepoint.json")
    assert (base / "back" / "q0" / "state" / "0" / "1.delta").read_text() == "abc"
    assert [p.name for p in (base / "back").iterdir()] == ["q0"]
    assert storage.same(base / "copy", HadoopPath(f"{base}/copy/")) and not storage.same(base / "copy", base / "back")


def test_a_namenode_that_is_not_there_is_one_line(spark) -> None:
    gone = HadoopPath("hdfs://127.0.0.1:1/ck")
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    conf.set("ipc.client.connect.max.retries", "0")  # Hadoop's client tries 10 times, a second apart
    try:
        with pytest.raises(OSError) as err:
            gone.exists()
    finally:
        conf.unset("ipc.client.connect.max.retries")
    assert str(err.value).startswith("hdfs://127.0.0.1:1/ck: Call From ") and "\n" not in str(err.value)
    assert "Connection refused" in str(err.value)
