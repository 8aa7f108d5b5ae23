"""`sqlengine lint` through the real CLI: exit codes, outputs, positions, configuration, and that
linting never imports pyspark nor touches the engine's home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from repl.cli import main

ROOT = Path(__file__).resolve().parents[2]
NEXMARK = ROOT / "tests" / "fixtures" / "nexmark"
DDL = """\
CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def write(tmp_path, name, text):
    p = tmp_path / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


def test_clean_file_exits_0(tmp_path, capsys):
    f = write(tmp_path, "ok.sql", DDL + "SELECT user_id, url FROM clicks WHERE user_id > 10;\n")
    assert main(["lint", str(f)]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "0 findings" in err


def test_findings_exit_1_with_positions(tmp_path, capsys):
    f = write(tmp_path, "agg.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    assert main(["lint", str(f)]) == 1
    out, _ = capsys.readouterr()
    assert out.startswith(f"{f}:3:47: SE101 Group aggregation of `clicks`")
    assert main(["lint", str(f), "--fail-on", "error"]) == 0
    assert main(["lint", str(f), "--ignore", "SE101"]) == 0
    assert main(["lint", str(f), "--select", "SE102,SE103"]) == 0


def test_invalid_sql_exits_2_and_other_statements_are_still_linted(tmp_path, capsys):
    f = write(tmp_path, "bad.sql", DDL + "SELECT FROM WHERE;\nSELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    assert main(["lint", str(f), "--format", "json"]) == 2
    items = json.loads(capsys.readouterr().out)
    assert [(i["code"], i["line"], i["category"]) for i in items] == [("E001", 3, "syntax"), ("SE101", 4, "unbounded-state")]


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["lint", str(tmp_path / "missing.sql")]) == 2
    assert "no such file or directory" in capsys.readouterr().err
    f = write(tmp_path, "q.sql", DDL)
    assert main(["lint", str(f), "--define", "NOEQUALS"]) == 2
    assert main(["lint", str(f), "--format", "xml"]) == 2
    assert main(["lint"]) == 2
    bad = write(tmp_path, "conf.toml", '[tool.sqlengine.lint]\nfail-on = "maybe"\n')
    assert main(["lint", str(f), "--config", str(bad)]) == 2
    assert "fail-on" in capsys.readouterr().err


def test_nexmark_with_init_and_define(tmp_path, capsys):
    args = ["lint", str(NEXMARK / "q3.sql"), str(NEXMARK / "q5.sql"), "--init", str(NEXMARK / "ddl_gen.sql"),
            "--init", str(NEXMARK / "ddl_views.sql"), "-D", "NEXMARK_TABLE=datagen", "-D", "TPS=1000", "--format", "json"]
    assert main(args) == 1
    items = json.loads(capsys.readouterr().out)
    assert [(Path(i["path"]).name, i["line"], i["column"], i["code"]) for i in items] == [
        ("q3.sql", 21, 29, "SE102"),
        ("q3.sql", 21, 29, "SE102"),
    ]
    assert all(i["category"] == "unbounded-state" for i in items)


def test_config_from_pyproject_and_output_file(tmp_path, capsys):
    write(tmp_path, "pyproject.toml", '[tool.sqlengine.lint]\nfail-on = "none"\n[tool.sqlengine.lint.severity]\nSE101 = "info"\n')
    f = write(tmp_path, "sql/q.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    out = tmp_path / "report.sarif"
    assert main(["lint", str(f), "--format", "sarif", "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["runs"][0]["results"][0]["level"] == "note"
    assert capsys.readouterr().out == ""


def test_noqa_through_the_cli(tmp_path, capsys):
    f = write(tmp_path, "q.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id; -- noqa: SE101\n")
    assert main(["lint", str(f)]) == 0


def test_github_format(tmp_path, capsys):
    f = write(tmp_path, "q.sql", DDL + "SELECT DISTINCT url FROM clicks;\n")
    assert main(["lint", str(f), "--format", "github"]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith(f"::warning file={f},line=3,col=") and ",title=SE103::DISTINCT of `clicks`" in line


def test_lint_in_a_subprocess_never_imports_pyspark_nor_touches_home(tmp_path):
    f = write(tmp_path, "q.sql", DDL + "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n")
    home = tmp_path / "home"
    code = (
        "import sys; sys.modules['pyspark'] = None\n"  # any import of pyspark fails
        "from repl.cli import main\n"
        f"rc = main(['lint', {str(f)!r}, '--format', 'json'])\n"
        "assert not [m for m in sys.modules if m.startswith(('pyspark', 'py4j', 'sqlengine'))], 'engine imported'\n"
        "sys.exit(rc)\n"
    )
    env = {**os.environ, "SQLENGINE_HOME": str(home), "HOME": str(tmp_path / "user")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)[0]["code"] == "SE101"
    assert not home.exists() and not (tmp_path / "user" / ".sqlengine").exists()


def test_python_m_repl_cli_runs(tmp_path):
    f = write(tmp_path, "q.sql", DDL + "SELECT DISTINCT url FROM clicks;\n")
    proc = subprocess.run([sys.executable, "-m", "repl.cli", "lint", str(f)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{f}:3:") and " SE103 " in proc.stdout
    assert "Traceback" not in proc.stderr
