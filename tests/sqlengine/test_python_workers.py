"""The Python Spark's workers run with on this machine (sqlengine.python_workers): this
interpreter, through a launcher that takes Spark's duplicate pyspark and py4j zips off PYTHONPATH,
so that a worker imports the installed, compiled packages. No Spark here: the launcher is run as
Spark runs it (``$PYSPARK_PYTHON -m module``, PYTHONPATH in its environment)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sqlengine import python_workers
from sqlengine.python_workers import duplicate_zips, worker_env, write_launcher

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the launcher is a POSIX shell script")

SHOW = "import os, sys, pyspark; print(os.environ.get('PYTHONPATH', '')); print(pyspark.__file__); print(sys.executable)"


def _run(launcher: Path, pythonpath: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": pythonpath}
    out = subprocess.run([str(launcher), "-c", SHOW], env=env, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def test_the_launcher_drops_sparks_zips_and_keeps_every_other_entry(tmp_path):
    zips = duplicate_zips()
    assert zips and zips[0].endswith("/python/lib/pyspark.zip"), zips  # pip's layout, as CI installs it
    odd = tmp_path / "a dir with spaces*"  # no word splitting, no globbing
    launcher = write_launcher(tmp_path / "python-worker.sh", sys.executable, zips)
    path, pyspark_file, executable = _run(launcher, ":".join([*zips, "/opt/jars/spark-core.jar", str(odd), "/src"]))
    assert path == f"/opt/jars/spark-core.jar:{odd}:/src"
    assert ".zip" not in pyspark_file and Path(pyspark_file).is_file()  # the installed package
    assert Path(executable).resolve() == Path(sys.executable).resolve()


def test_the_launcher_with_only_the_zips_leaves_pythonpath_empty(tmp_path):
    zips = duplicate_zips()
    launcher = write_launcher(tmp_path / "python-worker.sh", sys.executable, zips)
    assert _run(launcher, ":".join(zips))[0] == ""


def test_workers_on_this_machine_run_the_launcher_and_elsewhere_spark_decides(tmp_path, monkeypatch):
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    env = worker_env(True, tmp_path)
    assert env == {"PYSPARK_PYTHON": str(tmp_path / python_workers.LAUNCHER)}
    assert os.access(env["PYSPARK_PYTHON"], os.X_OK)
    assert worker_env(False, tmp_path) == {}  # a cluster's workers: this path may not exist there
    monkeypatch.setenv("PYSPARK_PYTHON", "/usr/bin/python3")
    assert worker_env(True, tmp_path) == {}  # the user's choice stands


def test_without_the_duplicate_zips_the_workers_run_this_interpreter(tmp_path, monkeypatch):
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    monkeypatch.setattr(python_workers, "duplicate_zips", lambda: ())
    assert worker_env(True, tmp_path) == {"PYSPARK_PYTHON": sys.executable}
