#!/usr/bin/env python3
"""A local HDFS for trying checkpoints on a Hadoop URI and for sqlengine's tests.

    python scripts/hdfs_cluster.py fetch            # Hadoop's mini cluster jars from Maven Central (cached)
    python scripts/hdfs_cluster.py start [--port N] [--datanodes N]

``start`` runs Hadoop's own mini HDFS (``MiniHadoopClusterManager``: a NameNode and DataNodes in one
JVM, every port on 127.0.0.1), prints its URI (``hdfs://127.0.0.1:PORT``) and runs until Ctrl-C; its
blocks and log live in a fresh temporary directory. The jars (hadoop-client-minicluster 3.5.0, the
Hadoop client pyspark ships, and its shaded dependencies: 7 jars, 104 MB) are fetched once with
Maven into ``~/.cache/sqlengine/hdfs-3.5.0`` ($SQLENGINE_HDFS_JARS overrides). sqlengine itself never
starts one: point ``--checkpoint-root`` at your own cluster's HDFS.

Importable: ``with Hdfs() as hdfs: hdfs.uri`` (the tests' fixture does so). Only the standard
library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a file or loaded by the tests
from local_service import LOOPBACK, Service, die_with_parent, free_port, maven_fetch

HADOOP_VERSION = "3.5.0"
POM = Path(__file__).resolve().parent / "hdfs" / "pom.xml"
JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx512m", "-Xss1m"]
MANAGER = "org.apache.hadoop.mapreduce.MiniHadoopClusterManager"


class HdfsError(Exception):
    """One line fit to show: what is missing or what failed."""


def jars_dir() -> Path:
    default = Path.home() / ".cache" / "sqlengine" / f"hdfs-{HADOOP_VERSION}"
    return Path(os.environ.get("SQLENGINE_HDFS_JARS") or default)


def fetch(quiet: bool = True) -> Path:
    """The directory of the mini cluster's jars, fetched with Maven the first time."""
    return maven_fetch(POM, jars_dir(), HADOOP_VERSION, f"Hadoop {HADOOP_VERSION}'s mini HDFS", HdfsError, quiet)


class Hdfs(Service):
    """A NameNode and ``datanodes`` DataNodes on 127.0.0.1 with fresh storage."""

    def __init__(self, port: int | None = None, datanodes: int = 1, workdir: Path | None = None):
        self.port = port or free_port()
        self.datanodes = datanodes
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="hdfs-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def uri(self) -> str:
        return f"hdfs://{LOOPBACK}:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.workdir / "hdfs.log"

    def start(self, timeout: float = 90) -> Hdfs:
        jars = fetch()
        java = shutil.which("java")
        if java is None:
            raise HdfsError("Java 17+ is needed to run HDFS (java is not on PATH).")
        details = self.workdir / "details.json"
        details.unlink(missing_ok=True)
        storage = self.workdir / "storage"
        shutil.rmtree(storage, ignore_errors=True)
        cmd = [java, *JVM_FLAGS, "-cp", f"{jars}/*", MANAGER, "-nomr", "-format",
               "-nnport", str(self.port), "-datanodes", str(self.datanodes),
               "-D", f"hdfs.minidfs.basedir={storage}",
               # the web UIs too on loopback, on ports of their own
               "-D", f"dfs.namenode.http-address={LOOPBACK}:0",
               "-D", f"dfs.datanode.http.address={LOOPBACK}:0",
               "-writeDetails", str(details)]
        out = open(self.log_file, "wb")  # noqa: SIM115 - the cluster's for its life
        self.process = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:  # the details are written once the DataNodes have registered
            if self.process.poll() is not None:
                raise HdfsError(f"HDFS exited with {self.process.returncode}; see {self.log_file}")
            try:
                if json.loads(details.read_text()).get("namenode_port") == self.port:
                    return self
            except (OSError, ValueError):
                pass
            time.sleep(0.2)
        self.stop()
        raise HdfsError(f"HDFS did not start at {self.uri} within {timeout:.0f} s; see {self.log_file}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="fetch Hadoop's mini cluster jars from Maven Central (cached)")
    start = sub.add_parser("start", help="run HDFS on 127.0.0.1 until Ctrl-C")
    start.add_argument("--port", type=int, default=8020, help="the NameNode's port")
    start.add_argument("--datanodes", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        if args.command == "fetch":
            print(fetch(quiet=False))
            return 0
        with Hdfs(args.port, args.datanodes) as hdfs:
            print(f"HDFS (Hadoop {HADOOP_VERSION}) at {hdfs.uri} (log: {hdfs.log_file}); Ctrl-C stops it", flush=True)
            hdfs.wait()
        return 0
    except HdfsError as err:
        print(f"hdfs_cluster: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
