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


def test_a_directory_whose_name_has_glob_characters_is_listed_as_it_is(hdfs, spark) -> None:
    odd = HadoopPath(f"{hdfs}/odd-{uuid.uuid4().hex[:6]}/[x]{{a,b}}*")
    (odd / "q0" / "offsets").mkdir(parents=True)
    (odd / "q0" / "offsets" / "0").write_text("v1\n")
    assert [p.name for p in odd.glob("q*/offsets/[0-9]*")] == ["0"]
    assert [p.name for p in odd.iterdir()] == ["q0"] and (odd / "q0").parent == odd


def test_two_spellings_of_one_directory_are_the_same(base: HadoopPath, tmp_path: Path) -> None:
    (base / "a" / "b").mkdir(parents=True)
    assert storage.same(HadoopPath(f"{base}//a//b/"), base / "a" / "b")
    assert not storage.same(base / "a", base / "a" / "b") and not storage.same(base / "a", tmp_path)
    assert storage.canonical(HadoopPath(f"{base}/a//b")) == f"{base}/a/b"


def test_a_file_moves_to_a_name_not_taken_and_a_tree_is_not_copied_over_another(base: HadoopPath) -> None:
    (base / "t").mkdir(parents=True)
    (base / "t" / ".x.tmp").write_text("x")
    storage.replace(base / "t" / ".x.tmp", base / "t" / "x")
    assert [p.name for p in (base / "t").iterdir()] == ["x"]
    (base / "u").mkdir()
    with pytest.raises(FileExistsError):
        storage.copytree(base / "t", base / "u")
    assert list((base / "u").iterdir()) == []


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


def test_a_job_whose_checkpoint_namenode_is_not_there_is_one_line_at_the_statement(tmp_path: Path) -> None:
    """`sqlengine run` with its checkpoints on a NameNode nobody runs: one positioned line, exit 2,
    no Java trace; Hadoop's client retries as its settings say (--conf spark.hadoop.*)."""
    from tests.repl.test_cli_run import describe, run

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text('{"k": "a"}\n')
    sql = tmp_path / "q.sql"
    sql.write_text(
        f"CREATE TABLE src (k STRING) WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'in'}', 'format' = 'json');\n"
        "CREATE TABLE out_t (k STRING, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');\n"
        "INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k;\n"
    )
    proc = run(tmp_path / "home", "run", "--checkpoint-root", "hdfs://127.0.0.1:1/ck",
               "--conf", "spark.hadoop.ipc.client.connect.max.retries=0", str(sql))
    assert proc.returncode == 2, describe(proc)
    assert f"{sql}:3:1: error: hdfs://127.0.0.1:1/ck/out_t-" in proc.stderr, describe(proc)
    assert "Connection refused" in proc.stderr and "\tat " not in proc.stderr and "Traceback" not in proc.stderr
