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


# The README's test command runs on two pytest-xdist workers (`-n 2`). Each worker takes whole
# groups: a module (so its module fixtures, the conformance and state-verdict runs, run once), or
# the modules that share a session fixture of their own (one Kafka broker, one Spark cluster).
# xdist's own `--dist loadgroup` cannot do this with pytest 9 (it renames node ids, which pytest 9
# no longer allows), so the scheduler below groups them.
SHARED_GROUPS = ("tests/kafka/", "tests/cluster/")
# the groups that run for minutes go first, so that the two workers end together
LONG_FIRST = (
    "tests/conformance/test_conformance.py",
    "tests/integration/test_state_verdicts.py",
    "tests/sqlengine/test_streaming_hypothesis.py",
    "tests/sqlengine/test_streaming_equals_batch.py",
    "tests/cluster/",
    "tests/kafka/",
    "tests/repl/test_cli_run.py",
    "tests/integration/test_kill_recovery.py",
)


def xdist_group_of(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return next((g for g in SHARED_GROUPS if path.startswith(g)), path)


def _rank(nodeid: str) -> int:
    return next((i for i, g in enumerate(LONG_FIRST) if nodeid.startswith(g)), len(LONG_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items[:] = sorted(items, key=lambda item: _rank(item.nodeid))  # stable: each module's order kept


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        """xdist's scope scheduling with our groups as the scopes, in collection order."""

        def _split_scope(self, nodeid: str) -> str:
            return xdist_group_of(nodeid)

    config.option.loadscopereorder = False  # keep LONG_FIRST's order, not the most tests first
    return ByGroup(config, log)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test fails the run: a skip would otherwise pass unseen (-ra lists them)."""
    import os

    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped and os.environ.get("CI") and exitstatus == 0:
        reporter.write_line(f"ci: {len(skipped)} test(s) skipped; a skip in CI is a failure", red=True)
        session.exitstatus = 1

