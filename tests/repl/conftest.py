"""Fixtures for the shell tests: an Engine over a temporary home (no Spark unless a test asks for
the session-wide ``spark`` fixture), and shells driven through prompt_toolkit's pipe input."""

from __future__ import annotations

import pytest

from tests.repl.shell_driver import ShellDriver


@pytest.fixture
def engine(tmp_path):
    from sqlengine.engine import Engine

    return Engine(home=tmp_path / "home")


@pytest.fixture
def spark_engine(tmp_path, spark):
    from sqlengine.engine import Engine

    eng = Engine(home=tmp_path / "home", spark=spark)
    yield eng
    eng.stop_all()


@pytest.fixture
def shell_of():
    """shell_of(engine, **options) -> a started ShellDriver, closed after the test."""
    drivers = []

    def make(engine=None, **options):
        d = ShellDriver(engine, **options)
        drivers.append(d)
        return d.start()

    yield make
    for d in drivers:
        d.close()
