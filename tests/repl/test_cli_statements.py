"""Client statements through ``sqlengine -f`` in a real process: what EXPLAIN's details and
SHOW ... LIKE print."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DDL = """CREATE TABLE clicks (user_id BIGINT, url STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen');
"""


def run_file(tmp_path: Path, sql: str) -> subprocess.CompletedProcess:
    f = tmp_path / "f.sql"
    f.write_text(sql)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "repl.cli", "--home", str(tmp_path / "home"), "-f", str(f)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )  # fmt: skip


def test_explain_details_print_their_own_parts(tmp_path):
    query = "SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;\n"
    r = run_file(tmp_path, DDL + "EXPLAIN CHANGELOG_MODE " + query + "EXPLAIN PLAN_ADVICE " + query)
    assert r.returncode == 0, r.stderr
    changelog, advice = r.stdout.split("[INFO] Table has been created.\n")[1].split("== Plan ==")[1:]
    assert "changelog: upsert[user_id]" in changelog and "== Advice ==" not in changelog and "state:" not in changelog
    assert "== Advice ==" in advice and "WARNING SE101" in advice and "changelog:" not in advice


def test_explain_json_execution_plan_prints_the_json_document(tmp_path):
    r = run_file(tmp_path, DDL + "EXPLAIN JSON_EXECUTION_PLAN SELECT user_id FROM clicks;\n")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout.split("[INFO] Table has been created.\n")[1])
    assert [n["kind"] for n in doc["nodes"]] == ["Calc", "Scan"]


def test_show_functions_like_filters_the_built_ins_too(tmp_path):
    r = run_file(tmp_path, "CREATE FUNCTION my_upper AS 'com.example.MyUpper';\nSHOW FUNCTIONS LIKE 'my%';\nSHOW FUNCTIONS LIKE 'UPP%';\n")
    assert r.returncode == 0, r.stderr
    mine, upper = r.stdout.split("| function name   |")[1:]
    assert "| my_upper        |" in mine and "1 row in set" in mine and "ABS" not in mine
    assert "| UPPER           |" in upper and "1 row in set" in upper
