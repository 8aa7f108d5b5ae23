"""The same SQL through Spark Connect (`sqlengine run --remote sc://...` against a server on
loopback, local[2]): the window aggregation and the changelog Top-2 give the rows of local mode,
with progress lines and the operators' state; a server that is not there is one line, at once.
Local mode runs at the same time through `sqlengine submit --master local[2]`: spark-submit
starts its driver, Spark's log lines go to the log file."""

from __future__ import annotations

import re
import time

import pytest

from tests.cluster import workload as w

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@pytest.fixture(scope="module")
def runs(connect_server, tmp_path_factory):
    """The file over Spark Connect, and in local mode at the same time (its own JVM)."""
    import concurrent.futures as cf

    root = tmp_path_factory.mktemp("connect-runs")
    sql = root / "orders.sql"
    sql.write_text(w.orders_script(w.write_orders(root / "orders")))
    with cf.ThreadPoolExecutor(2) as pool:
        local = pool.submit(w.run, root / "local-home", "submit", str(sql), "--master", "local[2]", "--format", "json")
        remote = w.run(root / "home", "run", "--remote", connect_server.url, str(sql), "--format", "json")
        return remote, local.result()


@pytest.fixture(scope="module")
def remote_run(runs):
    return runs[0]


def test_remote_rows_equal_local_mode(runs):
    remote, local = runs
    assert local.returncode == 0, w.describe(local)
    assert w.results(local.stdout) == (w.expected_windows(), w.expected_top2()), w.describe(local)
    assert remote.returncode == 0, w.describe(remote)
    assert w.results(remote.stdout) == w.results(local.stdout), w.describe(remote)


def test_submit_leaves_sparks_log_lines_in_the_log_file(runs):
    local = runs[1]
    assert local.returncode == 0, w.describe(local)
    assert "[INFO] Job" in local.stderr  # sqlengine's own lines
    assert not [line for line in local.stderr.splitlines() if " INFO " in line or " WARN " in line], w.describe(local)


def test_remote_progress_and_state_are_shown(remote_run):
    assert remote_run.returncode == 0, w.describe(remote_run)
    # a progress line per micro-batch, and the final state of the stateful operators
    assert re.search(r"^\[\w+\] .*rows", remote_run.stderr, re.M), w.describe(remote_run)
    assert re.search(r"finished; final state: .*\d", remote_run.stderr), w.describe(remote_run)


def test_no_server_is_one_line_at_once(tmp_path):
    from tests.cluster.conftest import cluster_module

    port = cluster_module().free_port()
    sql = tmp_path / "one.sql"
    sql.write_text("SELECT 1 AS x;\n")
    started = time.monotonic()
    proc = w.run(tmp_path / "home", "run", "--remote", f"sc://127.0.0.1:{port}", str(sql))
    took = time.monotonic() - started
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert any(f"no Spark Connect server at 127.0.0.1:{port}" in line for line in lines), w.describe(proc)
    assert "Traceback" not in proc.stderr
    assert took < 60, f"{took:.0f} s"  # PySpark's own client retries for minutes
