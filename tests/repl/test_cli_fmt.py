"""`sqlengine fmt FILE... [--check]`."""

from __future__ import annotations

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
