"""Shared fixtures. ``spark`` is one local session for the whole run, started on first use only,
so tests that do not ask for it never start a JVM."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    from sqlengine.java import JavaMissing, check_java
    from sqlengine.session import create_session, stop_session

    try:
        check_java()
    except JavaMissing as err:
        # Spark tests fail rather than skip without Java (a skipped suite would pass CI unseen);
        # run `python -m pytest -m "not spark"` on a machine without it
        pytest.fail(f"{err} (or deselect the Spark tests: -m 'not spark')", pytrace=False)
    session = create_session(
        master="local[2]",
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"},
        app_name="sqlengine-tests",
        log_dir=tmp_path_factory.mktemp("spark-logs"),
    )
    yield session
    stop_session()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test fails the run: a skip would otherwise pass unseen (-ra lists them)."""
    import os

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped and os.environ.get("CI") and exitstatus == 0:
        reporter.write_line(f"ci: {len(skipped)} test(s) skipped; a skip in CI is a failure", red=True)
        session.exitstatus = 1
