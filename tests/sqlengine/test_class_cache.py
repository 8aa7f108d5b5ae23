"""The driver JVM's class cache (sqlengine.class_cache): which flag a JVM starts with (none for
the first of a pyspark and Java pair, which only leaves a mark), an archive adopted only after a
clean exit, and, with Spark, a second `sqlengine run` that leaves the archive in place and a third
one whose JVM maps it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sqlengine import class_cache

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(class_cache.ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(class_cache, "_writing", None)
    monkeypatch.setattr(class_cache, "_may_write", True)  # as `sqlengine run` and the shell say
    return tmp_path / "cache"


def test_the_first_jvm_only_leaves_a_mark(cache):
    assert class_cache.choose("/usr/bin/java", "17.0.15", "") is None and not class_cache.writing()
    (mark,) = cache.iterdir()
    assert mark.name.endswith(".jsa.seen")


def seen(cache: Path, java_version: str = "17.0.15") -> None:
    """As if a first JVM of this pair had run."""
    assert class_cache.choose("/usr/bin/java", java_version, "") is None


def test_the_second_jvm_writes_the_archive_under_a_name_of_its_own_and_a_clean_exit_puts_it_in_place(cache):
    seen(cache)
    first = class_cache.choose("/usr/bin/java", "17.0.15", "")
    assert first is not None and first.pending is not None and class_cache.writing()
    assert first.flag() == f"-XX:ArchiveClassesAtExit={first.pending}"
    assert first.pending.parent == cache and first.pending.name == f"{first.path.name}.{os.getpid()}.part"
    first.pending.write_bytes(b"archive")  # what the JVM writes as it exits
    assert class_cache.adopt(0) == first.path
    assert first.path.read_bytes() == b"archive" and not first.pending.exists() and not class_cache.writing()
    second = class_cache.choose("/usr/bin/java", "17.0.15", "")
    assert second is not None and second.pending is None
    assert second.flag() == f"-XX:SharedArchiveFile={first.path}"


def test_an_archive_of_a_jvm_that_did_not_end_cleanly_is_never_used(cache):
    seen(cache)
    first = class_cache.choose("/usr/bin/java", "17.0.15", "")
    first.pending.write_bytes(b"half an arch")
    assert class_cache.adopt(137) is None
    assert not first.path.exists() and not first.pending.exists()
    assert class_cache.choose("/usr/bin/java", "17.0.15", "").pending is not None  # the next JVM tries again


def test_one_archive_per_java_build(cache):
    seen(cache)
    a = class_cache.choose("/usr/bin/java", "17.0.15", "")
    class_cache.adopt(None)
    seen(cache, "21.0.2")
    b = class_cache.choose("/usr/bin/java", "21.0.2", "")
    assert a.path != b.path and "java-21.0.2" in b.path.name


@pytest.mark.parametrize("options", ["-Xshare:off", "-XX:SharedArchiveFile=/mine.jsa", "-XX:ArchiveClassesAtExit=/x.jsa"])
def test_a_users_own_class_sharing_flags_win(cache, options):
    seen(cache)
    assert class_cache.choose("/usr/bin/java", "17.0.15", "-Xmx2g") is not None  # without them: ours
    class_cache.adopt(None)
    assert class_cache.choose("/usr/bin/java", "17.0.15", f"-Xmx2g {options}") is None


def test_a_process_that_does_not_wait_for_its_jvm_never_writes(cache, monkeypatch):
    """Tests, benchmarks, a library user: their JVM would write the archive as an orphan."""
    monkeypatch.setattr(class_cache, "_may_write", False)
    seen(cache)
    assert class_cache.choose("/usr/bin/java", "17.0.15", "") is None and not class_cache.writing()
    monkeypatch.setattr(class_cache, "_may_write", True)
    first = class_cache.choose("/usr/bin/java", "17.0.15", "")
    first.pending.write_bytes(b"archive")
    class_cache.adopt(0)
    monkeypatch.setattr(class_cache, "_may_write", False)
    assert class_cache.choose("/usr/bin/java", "17.0.15", "").pending is None  # but it maps one


def test_a_cache_path_with_a_blank_is_not_used(tmp_path, monkeypatch):
    """Spark's launcher splits the JVM options on blanks."""
    monkeypatch.setenv(class_cache.ENV, str(tmp_path / "my cache"))
    assert class_cache.choose("/usr/bin/java", "17.0.15", "") is None
    assert not (tmp_path / "my cache").exists()


def test_the_newest_archives_are_kept(cache):
    cache.mkdir()
    for i in range(5):
        old = cache / f"spark-old-{i}.jsa"
        old.write_bytes(b"x")
        os.utime(old, (time.time() - 1000 + i, time.time() - 1000 + i))
    seen(cache)
    new = class_cache.choose("/usr/bin/java", "17.0.15", "")
    new.pending.write_bytes(b"archive")
    class_cache.adopt(0)
    assert sorted(p.name for p in cache.glob("*.jsa")) == sorted([new.path.name, "spark-old-3.jsa", "spark-old-4.jsa"])


def test_off_turns_it_off(monkeypatch):
    monkeypatch.setenv(class_cache.ENV, "off")
    assert class_cache.cache_dir() is None and class_cache.choose("/usr/bin/java", "17.0.15", "") is None


def test_the_default_place_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv(class_cache.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert class_cache.cache_dir() == tmp_path / "sqlengine"


def test_a_pending_archive_of_a_killed_jvm_is_removed_once_stale(cache):
    cache.mkdir()
    old, fresh = cache / "x.jsa.1.part", cache / "y.jsa.2.part"
    old.write_bytes(b"x")
    fresh.write_bytes(b"y")
    past = time.time() - class_cache.STALE_SECONDS - 60
    os.utime(old, (past, past))
    seen(cache)
    class_cache.choose("/usr/bin/java", "17.0.15", "")
    assert not old.exists() and fresh.exists()


@pytest.mark.spark
@pytest.mark.slow
def test_the_second_run_leaves_the_archive_and_the_next_jvm_maps_it(tmp_path):
    sql = tmp_path / "q.sql"
    sql.write_text(
        "CREATE TABLE g (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '100', "
        "'fields.k.min' = '1', 'fields.k.max' = '3');\n"
        "SELECT COUNT(*) AS n FROM g;\n"
    )
    env = {**os.environ, class_cache.ENV: str(tmp_path / "cache")}

    def run(home: str, *extra: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "repl.cli", "--home", str(tmp_path / home), "run", *extra, "--format", "csv", str(sql)]
        return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)

    # the mark a first run leaves (tested above): this run writes the archive
    from sqlengine.java import check_java

    java = check_java()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / f"{class_cache.archive_name(java.path, java.version)}.seen").touch()
    done = run("h2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["n", "100"]
    archives = [p for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".seen")]
    (archive,) = archives  # in place, nothing pending left
    assert archive.suffix == ".jsa" and archive.stat().st_size > 10_000_000
    third = run("h3", "--conf", "spark.driver.extraJavaOptions=-Xlog:cds=info")
    assert third.returncode == 0, third.stderr
    assert third.stdout.split() == ["n", "100"]
    jvm_out = (tmp_path / "h3" / "logs" / "jvm.out").read_text()
    assert f"Opened archive {archive}." in jvm_out
