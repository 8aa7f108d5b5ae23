"""`sqlengine fmt FILE... [--check]`."""

from __future__ import annotations

import pytest

from repl.cli import main

UGLY = "select a,count(*) from t group by a"
PRETTY = "SELECT\n  a,\n  COUNT(*)\nFROM t\nGROUP BY\n  a;\n"


def test_fmt_rewrites_in_place_and_is_then_clean(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text(UGLY)
    assert main(["fmt", "--check", str(f)]) == 1
    assert capsys.readouterr().out == f"would reformat {f}\n"
    assert f.read_text() == UGLY
    assert main(["fmt", str(f)]) == 0
    assert capsys.readouterr().out == f"reformatted {f}\n"
    assert f.read_text() == PRETTY
    assert main(["fmt", "--check", str(f)]) == 0


def test_fmt_errors_exit_2_with_positions(tmp_path, capsys):
    f = tmp_path / "bad.sql"
    f.write_text("SELECT 1;\nSELECT (1;\n")
    assert main(["fmt", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2:" in err and "error:" in err
    assert f.read_text() == "SELECT 1;\nSELECT (1;\n"


def test_a_missing_delegate_module_is_a_one_line_error(capsys):
    """`run` and the shell live in modules written elsewhere; without one, one line and exit 2."""
    import argparse

    from repl.cli import _delegate

    assert _delegate("repl.no_such_module", argparse.Namespace(command="run")) == 2
    err = capsys.readouterr().err
    assert err == "sqlengine: `run` is not available in this build (repl.no_such_module is missing)\n"


def test_an_internal_error_is_one_line_and_its_trace_goes_to_the_log(tmp_path, capsys, monkeypatch):
    import planner.lint

    def boom(*args, **kwargs):
        raise RuntimeError("kaput")

    monkeypatch.setenv("SQLENGINE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(planner.lint.Linter, "lint_files", boom)
    f = tmp_path / "q.sql"
    f.write_text("SELECT 1;\n")
    assert main(["lint", str(f)]) == 2
    err = capsys.readouterr().err
    log = tmp_path / "home" / "logs" / "sqlengine.log"
    assert err == f"sqlengine: internal error: RuntimeError: kaput (details in {log})\n"
    assert "Traceback" in log.read_text() and "kaput" in log.read_text()


def test_the_log_falls_back_to_a_temp_dir_when_the_home_cannot_be_created(tmp_path, capsys, monkeypatch):
    import tempfile

    import planner.lint

    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("SQLENGINE_HOME", str(blocker / "home"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(planner.lint.Linter, "lint_files", lambda *a, **k: 1 / 0)
    f = tmp_path / "q.sql"
    f.write_text("SELECT 1;\n")
    assert main(["lint", str(f)]) == 2
    log = tmp_path / "tmp" / "sqlengine-logs" / "sqlengine.log"
    assert f"(details in {log})" in capsys.readouterr().err
    assert "ZeroDivisionError" in log.read_text()


def test_fmt_dash_reads_stdin_and_writes_stdout(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(UGLY))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == PRETTY


def test_fmt_diff_prints_a_unified_diff_and_changes_nothing(tmp_path, capsys):
    f = tmp_path / "q.sql"
    f.write_text(UGLY)
    assert main(["fmt", "--diff", str(f)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"--- {f}\n+++ {f} (formatted)\n@@ -1 +1,6 @@\n-{UGLY}\n\\ No newline at end of file\n")
    assert "+SELECT\n+  a,\n+  COUNT(*)\n" in out
    assert f.read_text() == UGLY
    f.write_text(PRETTY)
    assert main(["fmt", "--diff", str(f)]) == 0
    assert capsys.readouterr().out == ""


def test_fmt_never_writes_a_statement_that_would_mean_something_else(tmp_path, capsys, monkeypatch):
    from planner.statements.script import Statement

    real = Statement.sql
    monkeypatch.setattr(Statement, "sql", lambda self, **kw: real(self, **kw).replace("a", "b"))
    f = tmp_path / "q.sql"
    f.write_text("SELECT 1;\n" + UGLY + ";\n")
    assert main(["fmt", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:2:1: error: fmt would change what this statement means" in err
    assert f.read_text() == "SELECT 1;\n" + UGLY + ";\n"


@pytest.mark.parametrize("sql", [
    "SELECT " + " + ".join(["a"] * 1000) + " FROM t",
    "SELECT a FROM " + "(SELECT a FROM " * 120 + "t" + ") x" * 120,
    "SELECT " + "CASE WHEN a > 0 THEN " * 60 + "1" + " ELSE 0 END" * 60 + " FROM t",
])
def test_fmt_formats_deep_statements_to_the_same_tree(tmp_path, sql):
    from planner.statements.script import parse_script

    f = tmp_path / "q.sql"
    f.write_text(sql + ";\n")
    assert main(["fmt", str(f)]) == 0
    assert [s.tree for s in parse_script(f.read_text()).statements] == [s.tree for s in parse_script(sql).statements]
