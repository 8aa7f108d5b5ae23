"""``sqlengine -f file.sql``, statements piped on stdin, and ``sqlengine -i init.sql`` through the
real entry points; the toolbar; and the fast start (no pyspark before a statement needs it)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from repl.toolbar import SparkStatus, toolbar_text
from tests.repl.shell_driver import CTRL_D, ShellDriver

ROOT = Path(__file__).resolve().parents[2]
DDL = """\
CREATE TABLE bids (ts TIMESTAMP_LTZ(3), item STRING, price BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = '/tmp/nowhere', 'format' = 'json');
"""


def cli(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "repl.cli", *args], input=stdin or "", capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def test_dash_f_runs_a_file_and_exits_0(tmp_path):
    f = tmp_path / "ok.sql"
    f.write_text(DDL + "SHOW TABLES;\nDESCRIBE bids;\nSET 'sql-client.execution.result-mode' = 'tableau';\nSET;\n")
    r = cli("--home", str(tmp_path / "home"), "-f", str(f))
    assert r.returncode == 0, r.stderr
    assert "[INFO] Table has been created." in r.stdout
    assert "| bids " in r.stdout and "TIMESTAMP_LTZ(3) *ROWTIME*" in r.stdout
    assert "| sql-client.execution.result-mode           | tableau" in r.stdout
    assert "\x1b[" not in r.stdout  # plain text when the output is not a terminal
    assert r.stderr == ""


def test_dash_f_stops_at_an_error_with_its_position_and_exits_2(tmp_path):
    f = tmp_path / "bad.sql"
    f.write_text(DDL + "SELECT item FROM bidz;\nSHOW TABLES;\n")
    r = cli("--home", str(tmp_path / "home"), "-f", str(f))
    assert r.returncode == 2
    assert f"{f}:4:18: error: Table or view `bidz` does not exist" in r.stderr
    assert "   4 | SELECT item FROM bidz;" in r.stderr and "     |                  ^^^^" in r.stderr
    assert "hint: did you mean `bids`?" in r.stderr
    assert "1 statement after it not run." in r.stderr
    assert "Traceback" not in r.stderr + r.stdout
    assert "table name" not in r.stdout  # SHOW TABLES did not run


def test_dash_f_missing_file(tmp_path):
    r = cli("--home", str(tmp_path / "home"), "-f", str(tmp_path / "nope.sql"))
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_statements_piped_on_stdin_run_without_a_prompt(tmp_path):
    r = cli("--home", str(tmp_path / "home"), stdin=DDL + "SHOW TABLES;\n")
    assert r.returncode == 0, r.stderr
    assert "| bids " in r.stdout and "sqlengine>" not in r.stdout


def test_dash_i_runs_the_init_file_before_the_prompt(tmp_path):
    init = tmp_path / "init.sql"
    init.write_text(DDL + "SET 'sql-client.execution.result-mode' = 'changelog';\n")
    args = argparse.Namespace(home=str(tmp_path / "home"), init=[str(init)], file=None, define=None, master=None, remote=None, command="shell")
    sh = ShellDriver(main_args=args)
    try:
        sh.start()
        text = sh.text()
        assert text.index("Table has been created.") < text.index("sqlengine>")
        sh.send("SHOW TABLES;\r")
        sh.wait_for("| bids ")
        sh.send(CTRL_D)
        assert sh.join() == 0
    finally:
        sh.close()
    assert "SHOW TABLES;" in (tmp_path / "home" / "history").read_text()


def test_dash_i_with_an_error_still_reaches_the_prompt(tmp_path):
    init = tmp_path / "init.sql"
    init.write_text("CREATE TABLE broken (a INT WITH ('connector' = 'datagen');\n")
    args = argparse.Namespace(home=str(tmp_path / "home"), init=[str(init)], file=None, define=None, master=None, remote=None, command="shell")
    sh = ShellDriver(main_args=args)
    try:
        sh.start()
        assert f"{init}:1:" in sh.text() and "stopped at the error above; the shell starts anyway." in sh.text()
        sh.send(CTRL_D)
        assert sh.join() == 0
    finally:
        sh.close()


def test_the_toolbar_says_what_spark_and_the_jobs_are_doing():
    spark = SparkStatus()
    settings = {"sql-client.execution.result-mode": "changelog", "sql-client.state-warnings": "error"}
    text = "".join(t for _s, t in toolbar_text(spark, list, lambda: settings))
    assert "Spark: not started" in text and "jobs: 0 running" in text
    assert "result mode: changelog" in text and "state warnings: error" in text
    spark.state = "starting"
    assert "starting…" in "".join(t for _s, t in toolbar_text(spark, list, lambda: settings))
    spark.state = "ready"
    assert "Spark: ready" in "".join(t for _s, t in toolbar_text(spark, list, lambda: settings))


def test_the_prompt_comes_up_without_importing_pyspark(tmp_path):
    """The shell's imports and its prompt, then DDL and SHOW: pyspark is still not loaded."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from sqlengine.engine import Engine
        from tests.repl.shell_driver import ShellDriver, CTRL_D
        sh = ShellDriver(Engine(home={str(tmp_path / 'home')!r})).start()
        sh.run("CREATE TABLE t (a INT) WITH ('connector' = 'datagen');")
        sh.run("SHOW TABLES;")
        sh.run("EXPLAIN SELECT a, COUNT(*) FROM t GROUP BY a;")
        loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'py4j'))
        sh.send(CTRL_D)
        sh.join()
        print("LOADED", loaded)
        """
    )
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert "LOADED []" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
