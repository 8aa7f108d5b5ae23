"""scripts/kafka_broker.py: the broker serves records, its jars are cached, and it never
outlives its parent (even one killed with SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.kafka.conftest import SCRIPT, broker_module

pytestmark = pytest.mark.slow


def test_records_round_trip(kafka_broker):
    from kafka import KafkaConsumer, KafkaProducer

    producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap)
    producer.send("round-trip", key=b"k", value=b"v1").get(30)
    producer.send("round-trip", key=b"k", value=b"v2").get(30)
    producer.close()
    consumer = KafkaConsumer("round-trip", bootstrap_servers=kafka_broker.bootstrap,
                             auto_offset_reset="earliest", consumer_timeout_ms=3000)
    assert [(m.key, m.value) for m in consumer] == [(b"k", b"v1"), (b"k", b"v2")]
    consumer.close()


def test_the_jars_are_fetched_once(kafka_broker):
    mod = broker_module()
    jars = mod.fetch()
    assert (jars / ".complete").read_text() == mod.KAFKA_VERSION
    assert len(list(jars.glob("kafka_2.13-*.jar"))) == 1
    start = time.monotonic()
    assert mod.fetch() == jars  # cached: no Maven run
    assert time.monotonic() - start < 1


def test_the_broker_dies_with_its_parent(tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c",
         "import importlib.util,sys,time;"
         f"spec=importlib.util.spec_from_file_location('kb', {str(SCRIPT)!r});m=importlib.util.module_from_spec(spec);"
         "spec.loader.exec_module(m);"
         f"b=m.Broker(workdir={str(tmp_path)!r}).start();print(b.process.pid,flush=True);time.sleep(600)"],
        stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    broker_pid = int(child.stdout.readline())
    os.kill(broker_pid, 0)  # running
    child.send_signal(signal.SIGKILL)
    child.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            os.kill(broker_pid, 0)
        except ProcessLookupError:
            return
        try:  # reap it if it became our child's orphan adopted elsewhere
            os.waitpid(broker_pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.2)
    pytest.fail(f"the broker {broker_pid} outlived its parent")


def test_start_prints_the_address(tmp_path):
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "start", "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Kafka 4.1.1 at 127.0.0.1:") and "Ctrl-C stops it" in line, line
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
