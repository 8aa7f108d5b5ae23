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


def test_missing_shell_and_run_are_one_line_errors(capsys):
    import importlib.util

    if importlib.util.find_spec("repl.shell") is None:
        assert main([]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "repl.shell" in err
