#!/usr/bin/env python3
"""A local Apache Kafka broker for trying sqlengine's Kafka tables and for its tests.

    python scripts/kafka_broker.py fetch            # the broker's jars from Maven Central (cached)
    python scripts/kafka_broker.py start [--port N] [--partitions N]

``start`` runs one broker in KRaft combined mode (broker and controller in one JVM) on
127.0.0.1, prints its bootstrap address and runs until Ctrl-C; its data and log live in a fresh
temporary directory. The jars (Kafka 4.1.1 and its dependencies, 46 jars, 43 MB) are fetched
once with Maven (``mvn dependency:copy-dependencies``) into ``~/.cache/sqlengine/kafka-broker-4.1.1``
($SQLENGINE_KAFKA_JARS overrides); after that no network is needed. sqlengine itself never
starts a broker: point your tables at your own Kafka.

Importable: ``with Broker() as broker: broker.bootstrap`` (the tests' session fixture does so).
Only the standard library is used.
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a file or loaded by the tests
from local_service import LOOPBACK, Service, die_with_parent, free_port, maven_fetch

KAFKA_VERSION = "4.1.1"
POM = Path(__file__).resolve().parent / "kafka" / "pom.xml"
JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx512m", "-Xss1m"]
LOG4J = """status = error
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
"""


class BrokerError(Exception):
    """One line fit to show: what is missing or what failed."""


def jars_dir() -> Path:
    default = Path.home() / ".cache" / "sqlengine" / f"kafka-broker-{KAFKA_VERSION}"
    return Path(os.environ.get("SQLENGINE_KAFKA_JARS") or default)


def fetch(quiet: bool = True) -> Path:
    """The directory of the broker's jars, fetched with Maven the first time."""
    return maven_fetch(POM, jars_dir(), KAFKA_VERSION, f"the Kafka broker {KAFKA_VERSION}'s jars", BrokerError, quiet)


class Broker(Service):
    """One KRaft broker on 127.0.0.1 with a fresh data directory."""

    def __init__(self, port: int | None = None, partitions: int = 1, workdir: Path | None = None):
        self.port = port or free_port()  # 0 or None: a free port
        self.controller_port = free_port()
        self.partitions = partitions
        self.workdir = Path(workdir or tempfile.mkdtemp(prefix="kafka-broker-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.workdir / "broker.log"

    def _java(self, jars: Path, *args: str) -> list[str]:
        java = shutil.which("java")
        if java is None:
            raise BrokerError("Java 17+ is needed to run the Kafka broker (java is not on PATH).")
        log4j = self.workdir / "log4j2.properties"
        return [java, *JVM_FLAGS, f"-Dlog4j2.configurationFile={log4j}", "-cp", f"{jars}/*", *args]

    def start(self, timeout: float = 60) -> Broker:
        jars = fetch()
        data = self.workdir / "data"
        shutil.rmtree(data, ignore_errors=True)
        (self.workdir / "log4j2.properties").write_text(LOG4J.format(log=self.log_file))
        props = self.workdir / "server.properties"
        props.write_text("\n".join([
            "process.roles=broker,controller", "node.id=1",
            f"listeners=PLAINTEXT://{LOOPBACK}:{self.port},CONTROLLER://{LOOPBACK}:{self.controller_port}",
            f"advertised.listeners=PLAINTEXT://{LOOPBACK}:{self.port}",
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            f"controller.quorum.bootstrap.servers={LOOPBACK}:{self.controller_port}",
            f"log.dirs={data}", f"num.partitions={self.partitions}",
            "offsets.topic.replication.factor=1", "offsets.topic.num.partitions=1",
            "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1",
            "group.initial.rebalance.delay.ms=0", "auto.create.topics.enable=true",
            # keep every record: retention by time would drop replayed or test records whose
            # timestamps lie in the past (a 2023 timestamp is older than the default 7 days)
            "log.retention.ms=-1", "",
        ]))
        cluster = "-"
        while cluster.startswith("-"):  # the tool's argument parser takes a leading '-' for an option
            cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        fmt = subprocess.run(self._java(jars, "kafka.tools.StorageTool", "format", "-t", cluster, "-c", str(props),
                                        "--standalone"), capture_output=True, text=True)
        if fmt.returncode != 0:
            raise BrokerError(f"formatting the broker's storage failed: {(fmt.stderr or fmt.stdout).strip()[-300:]}")
        out = open(self.workdir / "broker.out", "wb")  # noqa: SIM115 - the broker's for its life
        self.process = subprocess.Popen(self._java(jars, "kafka.Kafka", str(props)), stdout=out,
                                        stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerError(f"the Kafka broker exited with {self.process.returncode}; see {self.log_file}")
            try:
                with socket.create_connection((LOOPBACK, self.port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise BrokerError(f"the Kafka broker did not open {self.bootstrap} within {timeout:.0f} s; see {self.log_file}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch", help="fetch the broker's jars from Maven Central (cached)")
    start = sub.add_parser("start", help="run a broker on 127.0.0.1 until Ctrl-C")
    start.add_argument("--port", type=int, default=9092)
    start.add_argument("--partitions", type=int, default=1, help="partitions of auto-created topics")
    args = parser.parse_args(argv)
    try:
        if args.command == "fetch":
            print(fetch(quiet=False))
            return 0
        with Broker(args.port, args.partitions) as broker:
            print(f"Kafka {KAFKA_VERSION} at {broker.bootstrap} (log: {broker.log_file}); Ctrl-C stops it", flush=True)
            broker.wait()
        return 0
    except BrokerError as err:
        print(f"kafka_broker: {err}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
