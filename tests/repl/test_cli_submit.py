"""`sqlengine submit --dry-run`: the spark-submit command line, without Spark (the cluster tests
run it for real)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def submit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "repl.cli", "--home", str(tmp_path / "home"), "submit", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=60)


def test_client_mode_runs_the_file_in_the_driver_spark_submit_starts(tmp_path):
    sql = tmp_path / "job.sql"
    sql.write_text("SELECT 1;\n")
    proc = submit(tmp_path, str(sql), "--master", "spark://127.0.0.1:7077", "--conf", "spark.executor.memory=2g",
                  "--set", "table.exec.state.ttl=1 h", "--format", "json", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    argv = shlex.split(proc.stdout)
    assert Path(argv[0]).name == "spark-submit"
    assert argv[argv.index("--master") + 1] == "spark://127.0.0.1:7077"
    assert argv[argv.index("--deploy-mode") + 1] == "client"
    assert argv[argv.index("--conf") + 1] == "spark.executor.memory=2g"
    main = next(a for a in argv if a.endswith("spark_main.py"))
    assert argv[argv.index(main) + 1 :] == ["--home", str(tmp_path / "home"), "run", str(sql), "--format", "json",
                                            "--set", "table.exec.state.ttl=1 h"]


def test_cluster_mode_ships_the_file(tmp_path):
    sql = tmp_path / "job.sql"
    sql.write_text("SELECT 1;\n")
    proc = submit(tmp_path, str(sql), "--master", "yarn", "--deploy-mode", "cluster", "--dry-run")
    argv = shlex.split(proc.stdout)
    assert argv[argv.index("--files") + 1] == str(sql)
    assert argv[argv.index("run") + 1] == "job.sql"  # beside the driver, where --files puts it
    assert "--driver-java-options" not in argv


def test_a_missing_file_is_one_line(tmp_path):
    proc = submit(tmp_path, str(tmp_path / "nope.sql"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"[ERROR] {tmp_path / 'nope.sql'}: no such file"
