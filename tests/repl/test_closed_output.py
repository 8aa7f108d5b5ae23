"""A closed standard output (``sqlengine ... | head -1``) ends every command quietly, with exit
status 141 and nothing on stderr (it printed ``[ERROR] Internal error: BrokenPipeError``). Real
processes whose stdout is a pipe closed before they write to it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from repl.pipes import EXIT_CLOSED_OUTPUT, OutputClosed, is_closed_output

ROOT = Path(__file__).resolve().parents[2]
DDL = "CREATE TABLE t (a INT) WITH ('connector' = 'datagen');\n"


def with_closed_stdout(*args: str, stdin: str = "") -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "repl.cli", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    proc.stdout.close()  # the reader has gone before the first write
    _out, err = proc.communicate(stdin, timeout=120)
    return proc.returncode, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "init.sql").write_text(DDL)
    (tmp_path / "q.sql").write_text("SELECT a, COUNT(*) FROM t GROUP BY a;\n" * 20)
    (tmp_path / "show.sql").write_text(DDL + "SHOW TABLES;\n" + "SHOW FUNCTIONS;\n" * 20)
    (tmp_path / "ugly.sql").write_text("select   a from t;\n")
    return tmp_path


def _commands(d: Path) -> dict[str, tuple[str, ...]]:
    home = str(d / "home")
    return {
        "-f": ("--home", home, "-f", str(d / "show.sql")),
        "run": ("--home", home, "run", str(d / "show.sql")),
        "lint": ("lint", "--init", str(d / "init.sql"), str(d / "q.sql")),
        "explain": ("explain", "--init", str(d / "init.sql"), str(d / "q.sql")),
        "fmt": ("fmt", "--check", str(d / "ugly.sql")),
    }


@pytest.mark.parametrize("command", ["-f", "run", "lint", "explain", "fmt"])
def test_a_closed_stdout_ends_the_command_quietly_with_141(files, command):
    if command == "run":
        from sqlengine.java import JavaMissing, check_java

        try:
            check_java()  # `run` checks for Java before its first statement (Spark is not started)
        except JavaMissing as err:  # fail, never skip: a skipped test would pass CI unseen
            pytest.fail(str(err), pytrace=False)
    status, err = with_closed_stdout(*_commands(files)[command])
    assert status == EXIT_CLOSED_OUTPUT == 141
    assert "rror" not in err and "Broken" not in err and "Traceback" not in err, err
    assert "not run" not in err and "finding" not in err  # no summary after the output is gone


def test_statements_on_stdin_with_a_closed_stdout(files):
    status, err = with_closed_stdout("--home", str(files / "home"), stdin=(files / "show.sql").read_text())
    assert (status, err) == (141, "")


def test_a_terminal_on_a_closed_pipe_raises_output_closed():
    from prompt_toolkit.output import create_output

    from repl.terminal import Terminal

    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "w") as stream:
        term = Terminal(interactive=False, output=create_output(stream))
        with pytest.raises(OutputClosed):
            term.print("x" * 100_000)
        assert not issubclass(OutputClosed, Exception)  # `except Exception` of a statement lets it through


def test_a_broken_pipe_elsewhere_is_not_taken_for_a_closed_output():
    # our stdout and stderr are open (pytest captures them): a socket's EPIPE is a real error
    assert not is_closed_output(BrokenPipeError(errno.EPIPE, "Broken pipe"))
    assert not is_closed_output(OSError(errno.ENOENT, "nope"))
