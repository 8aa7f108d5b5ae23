"""The JVM operators' jar (sqlengine.jvm): built once with the JDK's javac against pyspark's jars
and cached; without a javac the planner picks the Python operators, for `run` and `explain`
alike, and says so; asking for them anyway is one clear error. Needs a JDK (as the Spark tests
do), not a SparkSession."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from planner.analysis.physical import JVM_SETTING
from planner.statements.script import parse_script
from sqlengine import jvm
from sqlengine.engine import Engine

pytestmark = pytest.mark.spark

TOP = """CREATE TABLE bids (item BIGINT, price BIGINT) WITH ('connector' = 'filesystem', 'path' = '/tmp/b', 'format' = 'json');
SELECT item, price, r FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY item ORDER BY price DESC) AS r FROM bids) WHERE r <= 3;
"""


def test_the_jar_builds_when_pyspark_is_imported_from_its_zip(tmp_path, monkeypatch):
    """spark-submit (and a cluster's Python workers) put pyspark's ``python/lib/pyspark.zip`` on
    the path: the jars are then found above it, not beside the package inside the zip."""
    import pyspark

    real = Path(pyspark.__file__).parent
    zipped = real / "python" / "lib" / "pyspark.zip" / "pyspark" / "__init__.py"
    monkeypatch.setattr(pyspark, "__file__", str(zipped))
    monkeypatch.setenv(jvm.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.delenv("SPARK_HOME", raising=False)
    assert jvm._spark_jars() == real / "jars"
    with zipfile.ZipFile(jvm.jar()) as zf:
        assert "sqlengine/jvm/WindowAgg.class" in zf.namelist()


@pytest.fixture
def no_javac(tmp_path, monkeypatch) -> Path:
    """A JAVA_HOME with a java but no javac (a JRE), and an empty jar cache."""
    home = tmp_path / "jre"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "java").symlink_to(Path(subprocess.check_output(["bash", "-c", "readlink -f $(command -v java)"], text=True).strip()))
    monkeypatch.setenv("JAVA_HOME", str(home))
    monkeypatch.setenv(jvm.CACHE_ENV, str(tmp_path / "cache"))
    return home


def test_the_jar_is_built_once_and_cached(tmp_path, monkeypatch):
    monkeypatch.setenv(jvm.CACHE_ENV, str(tmp_path / "cache"))
    assert not jvm.jar_path().exists() and jvm.available()
    built = jvm.jar()
    assert built.parent == tmp_path / "cache" and built.name.startswith("operators-")
    with zipfile.ZipFile(built) as zf:
        assert "sqlengine/jvm/TopN.class" in zf.namelist()
    stamp = built.stat().st_mtime_ns
    assert jvm.jar() == built and built.stat().st_mtime_ns == stamp  # cached: not rebuilt
    assert [p.name for p in built.parent.iterdir()] == [built.name]  # nothing half-written left
    # jars of other sources or pyspark versions: the newest few are kept
    for i in range(4):
        old = built.parent / f"operators-old{i}.jar"
        old.write_bytes(b"")
        os.utime(old, (1_700_000_000 + i, 1_700_000_000 + i))
    built.unlink()
    assert jvm.jar() == built
    assert sorted(p.name for p in built.parent.iterdir()) == sorted([built.name, "operators-old3.jar", "operators-old2.jar"])


def test_without_javac_the_python_operators_run_and_asking_for_the_jvm_is_one_clear_error(no_javac, tmp_path):
    assert not jvm.available()
    with pytest.raises(jvm.BuildFailed, match=r"need a JDK's javac \(a JRE has none\); set 'sqlengine.changelog.jvm' = 'false'"):
        jvm.jar()
    engine = Engine(home=tmp_path / "home")
    *ddl, query = parse_script(TOP).statements
    for stmt in ddl:
        engine.plan(stmt)
    (physical,) = [p for p in engine.plan(query).analysis.physical.values() if p.changelog]
    assert not physical.jvm
    engine.planner.settings[JVM_SETTING] = "true"  # the user's SET wins over what the engine found
    (physical,) = [p for p in engine.plan(query).analysis.physical.values() if p.changelog]
    assert physical.jvm


def test_an_unwritable_cache_is_one_clear_error(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv(jvm.CACHE_ENV, str(blocked / "cache"))  # under a file: cannot be made
    with pytest.raises(jvm.BuildFailed, match=r"could not be built in .*/file/cache: .*; set SQLENGINE_CACHE to a writable"):
        jvm.jar()


def test_explain_says_what_would_run_here(no_javac, tmp_path):
    script = tmp_path / "top.sql"
    script.write_text(TOP)

    def explain() -> str:
        proc = subprocess.run([sys.executable, "-m", "repl.cli", "explain", str(script)], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert "runs as: changelog operator (Spark has no operator for it, AppendFastStrategy)" in explain()
    (no_javac / "bin" / "javac").symlink_to(Path(subprocess.check_output(["bash", "-c", "readlink -f $(command -v javac)"], text=True).strip()))
    assert "runs as: changelog operator on the JVM (Spark has no operator for it, AppendFastStrategy)" in explain()
