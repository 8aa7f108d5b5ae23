"""Shared fixtures. ``spark`` is one local session for the whole run, started on first use only,
so tests that do not ask for it never start a JVM."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# The suite runs hundreds of short jobs on small inputs, so every JVM it starts (the session's,
# `sqlengine run`'s subprocesses, the test cluster's master and workers) compiles with C1 only:
# C2's compiler threads spend more CPU than they save on runs of seconds, on 2 cores (measured on
# 30 conformance queries: JVM CPU 192 -> 149 s, wall 174 -> 154 s; `sqlengine run` of a small
# file: 13.0 -> 9.5 s). Only tests: users' JVMs keep HotSpot's tiered compilation.
# C1 alone gets a code cache of 48 MB (tiered: 240 MB), which the session's JVM, compiling
# Spark's generated code for thousands of queries, fills within minutes: the JVM then fails a
# query ("Out of space in CodeCache for adapters") or stops compiling and runs interpreted for the
# rest of the suite. 256 MB holds the whole suite.
TEST_JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m"


_class_cache: str | None = None  # the test session's own class cache (sqlengine.class_cache)


def pytest_configure(config: pytest.Config) -> None:
    global _class_cache
    for var in ("SPARK_SUBMIT_OPTS", "SPARK_DAEMON_JAVA_OPTS"):
        os.environ[var] = f"{os.environ.get(var, '')} {TEST_JVM_FLAGS}".strip()
    # the JVMs' class-data archive in a directory of the session's own, not the user's cache
    if "SQLENGINE_CLASS_CACHE" not in os.environ:
        _class_cache = tempfile.mkdtemp(prefix="sqlengine-class-cache-")
        os.environ["SQLENGINE_CLASS_CACHE"] = _class_cache


def pytest_unconfigure(config: pytest.Config) -> None:
    if _class_cache is not None:
        shutil.rmtree(_class_cache, ignore_errors=True)


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


@pytest.fixture(scope="session")
def hdfs(tmp_path_factory):
    """Hadoop's mini HDFS on loopback (scripts/hdfs_cluster.py), one for the run, started on
    first use: its URI, ``hdfs://127.0.0.1:PORT``."""
    from tests.scripts import load_script

    mod = load_script("hdfs_cluster")
    try:
        cluster = mod.Hdfs(workdir=tmp_path_factory.mktemp("hdfs")).start()
    except mod.HdfsError as err:
        pytest.fail(f"the test HDFS did not start: {err}", pytrace=False)
    yield cluster.uri
    cluster.stop()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test fails the run: a skip would otherwise pass unseen (-ra lists them)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped and os.environ.get("CI") and exitstatus == 0:
        reporter.write_line(f"ci: {len(skipped)} test(s) skipped; a skip in CI is a failure", red=True)
        session.exitstatus = 1
