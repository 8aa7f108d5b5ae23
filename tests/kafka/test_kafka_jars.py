"""Spark's Kafka connector comes from the Ivy cache or Maven Central; without either, the
statement fails with one line saying what to fetch (a fresh JVM with an empty Ivy cache and no
way out to the network)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def test_a_connector_that_cannot_be_resolved_is_one_line(tmp_path):
    script = tmp_path / "k.sql"
    script.write_text(
        "CREATE TABLE t (v STRING) WITH ('connector' = 'kafka', 'topic' = 'x', "
        "'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'raw', "
        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');\n"
        "SELECT v FROM t;\n"
    )
    offline = "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=9 -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=9"
    env = {**os.environ, "SQLENGINE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "repl.cli", "run", str(script), "--conf", f"spark.jars.ivy={tmp_path / 'ivy'}",
         "--conf", f"spark.driver.extraJavaOptions={offline}"],
        capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path,
    )
    assert proc.returncode != 0
    errors = [line for line in proc.stderr.splitlines() + proc.stdout.splitlines() if "error:" in line]
    assert len(errors) == 1, proc.stdout + proc.stderr
    assert errors[0].endswith("k.sql:2:15: error: Spark's Kafka connector could not be resolved "
                              "(org.apache.spark:spark-sql-kafka-0-10_2.13:4.2.0): it is not in the Ivy cache "
                              f"({tmp_path / 'ivy'}) and Maven Central could not be reached. Run once with access "
                              "to Maven Central, or give the jars with --conf spark.jars=... (spark-sql-kafka-0-10_2.13, "
                              "spark-token-provider-kafka-0-10_2.13, kafka-clients, commons-pool2)."), errors[0]
    assert "Traceback" not in proc.stderr + proc.stdout and "at org.apache" not in proc.stderr + proc.stdout
