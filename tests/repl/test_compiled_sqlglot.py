"""sqlglot's compiled build (sqlglotc, pulled in by ``sqlglot[c]``) cannot run the Flink dialect:
mypyc forbids instantiating Python subclasses of its parser. When another tool has installed it,
every command says so in one line and exits 2, instead of a traceback from the first parse."""

from __future__ import annotations

import subprocess
import venv
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_compiled_build_is_named_with_the_way_out(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    # the rest of sqlengine's dependencies come from this interpreter's site-packages; sqlglot and
    # its compiled build are installed in the venv, whose site-packages come first
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    python = env_dir / "bin" / "python"
    version = metadata.version("sqlglot")
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", f"sqlglot=={version}", f"sqlglotc=={version}"],
        capture_output=True, text=True, timeout=300,
    )
    if install.returncode != 0 and "No matching distribution" in install.stderr:
        pytest.skip(f"sqlglotc {version} is not on the package index: {install.stderr.strip()}")
    assert install.returncode == 0, install.stderr
    probe = subprocess.run([python, "-c", "import sqlglot.parser as p; print(p.__file__)"], capture_output=True, text=True)
    assert probe.stdout.strip().endswith(".so"), probe.stdout  # the compiled parser is the one imported

    sql = tmp_path / "q.sql"
    sql.write_text("SELECT 1;\n")
    for argv in (["lint", str(sql)], ["fmt", str(sql)], ["--home", str(tmp_path / "home"), "run", str(sql)]):
        done = subprocess.run([python, "-m", "repl.cli", *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert "sqlglotc" in done.stderr and "pip uninstall sqlglotc" in done.stderr, done.stderr
