"""The same SQL on a Spark standalone cluster (`sqlengine run` with `SET 'spark.master' =
'spark://...'` in its init file, a master and two workers of 1 core each): a window aggregation and
a changelog Top-2 give the rows Flink gives (worked out in tests/cluster/workload.py;
tests/cluster/test_connect.py runs the same file in local mode), with tasks on both workers,
although one worker is killed (SIGKILL to it and its executor) once the first micro-batch is done:
Spark runs the lost tasks on the other worker, their state read back from the checkpoint, which lies
under --checkpoint-root on HDFS (Hadoop's mini cluster on loopback, scripts/hdfs_cluster.py), where
the executors write the state and sqlengine reads and removes the checkpoints through Spark's JVM.
(A root on a local path, as on a shared mount, is what every local-mode test uses; a second cluster
run for it cost CI 80 s and showed nothing this one does not.)"""

from __future__ import annotations

import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from sqlengine.storage import HadoopPath, Location
from tests.cluster import workload as w

pytestmark = [pytest.mark.spark, pytest.mark.slow]


@dataclass
class Run:
    proc: subprocess.CompletedProcess
    tasks: list[int]  # tasks each worker's executors ran before the kill
    killed_after: int  # micro-batches done when worker 1 was killed (0: the run had ended)
    checkpoints_while_running: list[Location]  # the SELECTs' checkpoints under it, after the first micro-batch
    home_tmp_while_running: bool  # whether the home's own tmp held any checkpoint then


def _batches_done(home: Path) -> int:
    logs = list(home.glob("jobs/*/progress.jsonl"))
    return sum(len(p.read_text().splitlines()) for p in logs)


@pytest.fixture(scope="module")
def run(standalone, spark, hdfs, tmp_path_factory) -> Run:
    root = tmp_path_factory.mktemp("cluster-runs")
    sql = root / "orders.sql"
    sql.write_text(w.orders_script(w.write_orders(root / "orders")))
    home = root / "home"
    before = standalone.tasks_per_worker()
    # the checkpoints on HDFS, which this process reads through its Spark session's JVM (``spark``)
    shared: Location = HadoopPath(f"{hdfs}/cluster-{uuid.uuid4().hex[:8]}")
    # the master as an init file sets it (SET 'spark.master'), not --master: the run must still
    # reach the cluster (test_both_workers_ran_tasks)
    init = root / "init.sql"
    init.write_text(f"SET 'spark.master' = '{standalone.master_url}';\n")
    proc = subprocess.Popen(w.cli(home, "run", "--init", str(init), "--checkpoint-root", str(shared), str(sql),
                                  "--format", "json"),
                            cwd=w.REPO, env=w.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + w.WAIT
    while _batches_done(home) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    done = _batches_done(home) if proc.poll() is None else 0
    checkpoints = sorted((p.parent.parent.parent for p in shared.glob("tmp/select-*/q*/offsets/0")), key=str)
    home_tmp = any((home / "tmp").glob("select-*"))
    tasks = [now - then for now, then in zip(standalone.tasks_per_worker(), before, strict=True)]
    standalone.kill_worker(1)
    out, err = proc.communicate(timeout=w.WAIT)
    return Run(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), tasks, done, checkpoints, home_tmp)


def test_a_cluster_gives_flinks_rows(run):
    assert run.proc.returncode == 0, w.describe(run.proc)
    assert w.results(run.proc.stdout) == (w.expected_windows(), w.expected_top2()), w.describe(run.proc)


def test_both_workers_ran_tasks(run):
    assert all(n > 0 for n in run.tasks), f"tasks per worker: {run.tasks}"


def test_the_job_went_on_after_a_worker_was_killed(run):
    assert run.killed_after > 0, w.describe(run.proc)  # killed mid-run, not after it
    assert run.proc.returncode == 0, w.describe(run.proc)


def test_the_checkpoints_were_under_the_checkpoint_root_and_are_removed_at_the_end(run):
    assert run.checkpoints_while_running and not run.home_tmp_while_running, (run.checkpoints_while_running, w.describe(run.proc))
    assert not any(p.exists() for p in run.checkpoints_while_running)  # a SELECT's checkpoint lasts as long as its run
