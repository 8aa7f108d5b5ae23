"""The shell's warm-up query runs the engine's own path to its end on real Spark and leaves
nothing behind: no directory in the home, no table in the user's catalog, no job in the session's
list; stopped before it starts, it starts nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlengine.engine import Engine
from sqlengine.jobs import Status
from sqlengine.warm_up import WarmUp

pytestmark = pytest.mark.spark


def test_the_warm_up_runs_a_window_aggregation_to_its_end_and_leaves_nothing(spark, tmp_path: Path):
    user = Engine(tmp_path / "home", spark=spark)
    w = WarmUp(user.home)
    w.run(user.spark)
    assert w.job is not None and w.job.status == Status.FINISHED, w.job and w.job.error
    rows = w.job.result.rows()
    assert 0 < sum(r[3] for r in rows) < 2000  # the WHERE kept some of the 2000 rows, not all
    assert all((end - start).total_seconds() == 1 for _, start, end, _, _ in rows)
    assert w.seconds is not None and w.seconds > 0
    assert not w.home.exists() and not list((user.home / "tmp").glob("warm-up-*"))
    assert user.catalog.get_relation("warm_up") is None
    assert user.job_list() == []


def test_a_warm_up_stopped_before_it_runs_starts_no_job(spark, tmp_path: Path):
    w = WarmUp(tmp_path / "home")
    w.stop()
    w.run(spark)
    assert w.job is None
    assert not w.home.exists()


def test_a_warm_up_stopped_while_its_job_runs_ends_and_leaves_nothing(spark, tmp_path: Path):
    import threading
    import time

    w = WarmUp(tmp_path / "home")
    t = threading.Thread(target=w.run, args=(spark,))
    t.start()
    deadline = time.monotonic() + 120
    while w.job is None and t.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    w.stop()
    assert w.job is not None and w.job.done  # stop() returns once its job has ended
    t.join(60)
    assert not t.is_alive()
    assert w.job.status != Status.FINISHED and w.seconds is None  # it was stopped, not run to its end
    assert not w.home.exists()
