"""``NAME=value`` options: one reading (repl/options.py) for every command, and a malformed one
stops each command before it starts anything, with the same message and exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from repl.options import pairs

REPO = Path(__file__).resolve().parents[2]


def test_a_define_value_is_sql_text_kept_as_written():
    assert pairs(["REGION='EU'", " N =5", "E=", "X=a=b"], "--define") == {"REGION": "'EU'", "N": "5", "E": "", "X": "a=b"}


def test_a_set_may_be_written_as_the_statement_writes_it():
    assert pairs(["'table.exec.state.ttl' = '1 h'", 'a="x"', "b='it''s'", "c='x\""], "--set") == {
        "table.exec.state.ttl": "1 h", "a": "x", "b": "it's", "c": "'x\""}


def test_a_conf_value_is_spark_s_kept_as_written():
    assert pairs(["spark.driver.extraJavaOptions=-Da='b c'"], "--conf") == {"spark.driver.extraJavaOptions": "-Da='b c'"}


@pytest.mark.parametrize("given", ["NOEQUALS", "=5", " =5", "''=5"])
def test_a_pair_without_a_name_is_refused(given):
    flag = "--set"
    with pytest.raises(ValueError, match=f"^--set takes NAME=value; got '{given}'$"):
        pairs([given], flag)


# Each command with each of these options it takes (lint and explain start no Spark: no --conf).
CASES = [(c, f) for c in (["run"], [], ["submit", "--dry-run"]) for f in ("--define", "--conf")] + [
    (["run"], "--set"), (["submit", "--dry-run"], "--set"), (["lint"], "--define"), (["explain"], "--define")]


@pytest.mark.parametrize(("command", "flag"), CASES)
def test_every_command_refuses_a_malformed_pair_before_it_starts(tmp_path, command, flag):
    sql = tmp_path / "q.sql"
    sql.write_text("SELECT 1;\n")
    files = ["-f", str(sql)] if not command else [str(sql)]
    proc = subprocess.run([sys.executable, "-m", "repl.cli", "--home", str(tmp_path / "home"), *command, *files,
                           flag, "=x"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert f"{flag} takes NAME=value; got '=x'" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
