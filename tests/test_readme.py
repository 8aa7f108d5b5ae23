"""The README's two commands are the ones that work: CI runs exactly the test command, and the
quickstart's files exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"^(pip install -e .*)$", readme, flags=re.MULTILINE)


def test_ci_runs_the_readme_test_command():
    quickstart, tests = _commands()[:2]
    assert "pytest" in tests and "pytest" not in quickstart
    ci = [ln.strip() for ln in (ROOT / ".ci" / "run").read_text().splitlines()]
    assert tests in ci


def test_quickstart_files_exist():
    quickstart = _commands()[0]
    (sql,) = re.findall(r"sqlengine run (\S+)", quickstart)
    text = (ROOT / sql).read_text()
    (data,) = re.findall(r"'path'\s*=\s*'([^']+)'", text)
    assert (ROOT / data).is_file()
