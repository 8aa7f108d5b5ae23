#!/usr/bin/env python3
"""A Spark standalone cluster and a Spark Connect server on this machine, from the pip package of
pyspark, for trying sqlengine's ``--master`` and ``--remote`` and for its tests.

    python scripts/spark_cluster.py start [--workers 2] [--cores 1] [--memory 1g] [--connect]

``start`` runs a master and N workers (``spark-class org.apache.spark.deploy.master.Master`` /
``...worker.Worker``) on 127.0.0.1, and with ``--connect`` a Spark Connect server whose
applications run on that cluster; it prints the URLs and runs until Ctrl-C. Everything lives in a
fresh temporary directory: each worker's directory holds its executors' logs
(``worker-N/app-*/E/stderr``). Nothing is downloaded: the jars are pyspark's own.

Importable: ``with Cluster(workers=2) as cluster: cluster.master_url`` and
``ConnectServer(master=cluster.master_url).start().url`` (the tests' session fixtures do so).
Only the standard library and pyspark's files are used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a file or loaded by the tests
from local_service import LOOPBACK, die_with_parent, free_port

CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"


class ClusterError(Exception):
    """One line fit to show: what is missing or what failed."""


def spark_home() -> Path:
    """SPARK_HOME, or the pip package of pyspark (its bin/ and jars/ are a Spark distribution)."""
    if os.environ.get("SPARK_HOME"):
        return Path(os.environ["SPARK_HOME"])
    try:
        import pyspark
    except ImportError:
        raise ClusterError("pyspark is not installed (pip install -e .)") from None
    return Path(pyspark.__file__).resolve().parent


class _Daemon:
    """One JVM of the cluster, its output on a file."""

    def __init__(self, name: str, workdir: Path, argv: list[str], env: dict[str, str], label: str | None = None):
        self.name, self.log = name, workdir / f"{name}.out"
        self.label = label or f"Spark {name}"  # in messages
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env,
                                            preexec_fn=lambda: die_with_parent(own_group=True))

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL to the daemon and every JVM it started (a worker's executors)."""
        if self.alive():
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()

    def stop(self) -> None:
        if self.alive():
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                pass
        self.kill()


def _wait(ready: Callable[[], bool], daemons: list[_Daemon], timeout: float, too_long: str) -> None:
    """Until ``ready()``; a ClusterError if one of ``daemons`` exits first, or ``too_long`` once
    ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for daemon in daemons:
            if not daemon.alive():
                raise ClusterError(f"the {daemon.label} exited; see {daemon.log}")
        if ready():
            return
        time.sleep(0.3)
    raise ClusterError(too_long)


def _env(workdir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(SPARK_HOME=str(spark_home()), SPARK_LOCAL_IP=LOOPBACK, SPARK_LOG_DIR=str(workdir),
               SPARK_NO_DAEMONIZE="1", PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable))
    env.update(extra)
    return env


def _java_needed() -> None:
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise ClusterError("Java 17+ is needed to run Spark (java is not on PATH).")


class Cluster:
    """A standalone master and ``workers`` workers on 127.0.0.1, each worker with ``cores``
    cores and ``memory`` for its executors."""

    def __init__(self, workers: int = 2, cores: int = 1, memory: str = "1g", workdir: Path | None = None):
        self.workers, self.cores, self.memory = workers, cores, memory
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="spark-cluster-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port, self.ui_port = free_port(), free_port()
        self.master: _Daemon | None = None
        self.worker_daemons: list[_Daemon] = []

    @property
    def master_url(self) -> str:
        return f"spark://{LOOPBACK}:{self.port}"

    def worker_dir(self, i: int) -> Path:
        return self.workdir / f"worker-{i}"

    def state(self) -> dict[str, Any]:
        """The master's own view (its web UI's /json): workers, applications."""
        with urllib.request.urlopen(f"http://{LOOPBACK}:{self.ui_port}/json/", timeout=5) as r:
            state: dict[str, Any] = json.loads(r.read())
            return state

    def alive_workers(self) -> int:
        try:
            return sum(1 for w in self.state().get("workers", []) if w.get("state") == "ALIVE")
        except OSError:
            return 0

    def start(self, timeout: float = 90) -> Cluster:
        _java_needed()
        cls = str(spark_home() / "bin" / "spark-class")
        self.master = _Daemon("master", self.workdir, [
            cls, "org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", str(self.port),
            "--webui-port", str(self.ui_port)], _env(self.workdir))
        self.worker_daemons = [self._worker(i) for i in range(self.workers)]
        try:
            _wait(lambda: self.alive_workers() == self.workers, [self.master, *self.worker_daemons], timeout,
                  f"the cluster did not have {self.workers} workers within {timeout:.0f} s; see {self.workdir}")
        except ClusterError:
            self.stop()
            raise
        return self

    def _worker(self, i: int) -> _Daemon:
        d = self.worker_dir(i)
        d.mkdir(parents=True, exist_ok=True)
        return _Daemon(f"worker-{i}", self.workdir, [
            str(spark_home() / "bin" / "spark-class"), "org.apache.spark.deploy.worker.Worker", "--host", LOOPBACK,
            "--cores", str(self.cores), "--memory", self.memory, "--work-dir", str(d), "--webui-port", str(free_port()),
            self.master_url,
        ], _env(self.workdir, SPARK_WORKER_DIR=str(d)))

    def kill_worker(self, i: int) -> None:
        """Kill worker i and its executors at once (SIGKILL), as a lost machine."""
        self.worker_daemons[i].kill()

    def tasks_per_worker(self) -> list[int]:
        """How many tasks the executors of each worker ran, read from their logs."""
        out = []
        for i in range(self.workers):
            logs = self.worker_dir(i).glob("app-*/*/stderr")
            out.append(sum(p.read_text(errors="replace").count("Running task") for p in logs))
        return out

    def stop(self) -> None:
        for daemon in [*self.worker_daemons, *([self.master] if self.master else [])]:
            daemon.stop()

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ConnectServer:
    """A Spark Connect server on 127.0.0.1 (spark-submit of pyspark's own SparkConnectServer);
    its Spark runs on ``master`` (default local[2])."""

    def __init__(self, master: str = "local[2]", workdir: Path | None = None, conf: dict[str, str] | None = None):
        self.master, self.conf = master, dict(conf or {})
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="spark-connect-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.daemon: _Daemon | None = None

    @property
    def url(self) -> str:
        return f"sc://{LOOPBACK}:{self.port}"

    def start(self, timeout: float = 120) -> ConnectServer:
        _java_needed()
        conf = {"spark.connect.grpc.binding.address": LOOPBACK, "spark.connect.grpc.binding.port": str(self.port),
                "spark.ui.enabled": "false", "spark.sql.session.timeZone": "UTC", **self.conf}
        argv = [str(spark_home() / "bin" / "spark-submit"), "--class", CONNECT_SERVER, "--master", self.master,
                "--name", "sqlengine Spark Connect server"]
        for k, v in conf.items():
            argv += ["--conf", f"{k}={v}"]
        self.daemon = _Daemon("connect-server", self.workdir, argv, _env(self.workdir), "Spark Connect server")
        try:
            _wait(self._listening, [self.daemon], timeout,
                  f"the Spark Connect server did not open port {self.port} within {timeout:.0f} s; see {self.daemon.log}")
        except ClusterError:
            self.stop()
            raise
        return self

    def _listening(self) -> bool:
        try:
            with socket.create_connection((LOOPBACK, self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()

    def __enter__(self) -> ConnectServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("start", help="run a cluster on 127.0.0.1 until Ctrl-C")
    start.add_argument("--workers", type=int, default=2)
    start.add_argument("--cores", type=int, default=1, help="cores of each worker")
    start.add_argument("--memory", default="1g", help="memory of each worker's executors")
    start.add_argument("--connect", action="store_true", help="and a Spark Connect server on the cluster")
    args = parser.parse_args(argv)
    try:
        with Cluster(args.workers, args.cores, args.memory) as cluster:
            print(f"master {cluster.master_url} (web UI http://{LOOPBACK}:{cluster.ui_port}, logs {cluster.workdir})", flush=True)
            cores = str(args.workers * args.cores)  # Spark's 200 shuffle partitions are far too many here
            server = ConnectServer(cluster.master_url, cluster.workdir, {"spark.sql.shuffle.partitions": cores}).start() if args.connect else None
            if server is not None:
                print(f"Spark Connect {server.url}", flush=True)
            print("Ctrl-C stops it", flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
            if server is not None:
                server.stop()
        return 0
    except ClusterError as err:
        print(f"spark_cluster: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
