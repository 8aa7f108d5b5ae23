import os
import subprocess
import sys
from pathlib import Path

import pytest

from sqlengine.session import (
    SessionError,
    create_session,
    local_conf,
    local_driver_memory,
    session_overrides,
)
from sqlengine.state_backend import ROCKSDB

REPO = Path(__file__).resolve().parents[2]


def test_local_defaults(tmp_path):
    conf = local_conf("local[3]", {}, "app", tmp_path / "log4j2.properties")
    assert conf["spark.master"] == "local[3]"
    assert conf["spark.driver.host"] == "127.0.0.1"
    assert conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert conf["spark.ui.enabled"] == "false"
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert int(conf["spark.sql.shuffle.partitions"]) == max(2, os.cpu_count() or 2)
    assert conf["spark.driver.extraJavaOptions"].startswith("-Dlog4j.configurationFile=file:")
    assert "spark.sql.streaming.stateStore.providerClass" not in conf
    assert conf["spark.driver.memory"] == local_driver_memory()
    assert conf["spark.sql.codegen.cache.maxEntries"] == "2000"  # Spark's 100 is soon evicted
    assert conf["spark.python.sql.dataFrameDebugging.enabled"] == "false"
    assert 1024 <= int(local_driver_memory()[:-1]) <= 4096


def test_overrides_win_and_java_options_are_merged(tmp_path):
    conf = local_conf(
        "local[2]",
        {
            "spark.ui.enabled": "true",
            "spark.sql.session.timeZone": "Europe/Berlin",
            "spark.driver.extraJavaOptions": "-Dfoo=bar",
            "state.backend.type": "RocksDB",
            "spark.sql.codegen.cache.maxEntries": "50",
        },
        "app",
        tmp_path / "log4j2.properties",
    )
    assert conf["spark.ui.enabled"] == "true"
    assert conf["spark.sql.session.timeZone"] == "Europe/Berlin"
    assert conf["spark.sql.codegen.cache.maxEntries"] == "50"
    assert conf["spark.driver.extraJavaOptions"].endswith(" -Dfoo=bar")
    assert "-Dlog4j.configurationFile=" in conf["spark.driver.extraJavaOptions"]
    assert conf["spark.sql.streaming.stateStore.providerClass"] == ROCKSDB
    assert conf["spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled"] == "true"


def test_cluster_master_does_not_force_loopback(tmp_path):
    conf = local_conf("spark://h:7077", {}, "app", tmp_path / "x")
    assert "spark.driver.host" not in conf


def test_unknown_state_backend():
    with pytest.raises(SessionError, match=r"Unknown state\.backend\.type 'leveldb': use one of"):
        session_overrides({"state.backend.type": "leveldb"})


def test_remote_without_connect_extras_is_one_line(monkeypatch):
    """Whatever is installed: the client packages' check fails as it does without them."""
    import sys
    import types

    def missing(*_args: object) -> None:
        raise ImportError("grpcio >= 1.48.1 must be installed; however, it was not found.")

    monkeypatch.setitem(sys.modules, "pyspark.sql.connect.utils", types.SimpleNamespace(check_dependencies=missing))
    with pytest.raises(SessionError) as info:
        create_session(remote="sc://127.0.0.1:1")
    assert "pip install 'pyspark[connect]" in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.spark
def test_shared_session_settings(spark):
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.master") == "local[2]"
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    assert spark.range(5).count() == 5
    # the driver's heap is sized for the machine, not Spark's 1g default
    assert conf.get("spark.driver.memory") == local_driver_memory()
    heap = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()
    assert heap > 0.8 * int(local_driver_memory()[:-1]) * 2**20
    # DataFrame calls carry no Python call site (three py4j round trips each, and IPython's import)
    from pyspark.errors.utils import is_debugging_enabled

    assert spark.conf.get("spark.python.sql.dataFrameDebugging.enabled") == "false"
    assert not is_debugging_enabled()


@pytest.mark.spark
def test_create_session_reuses_the_running_session_and_applies_sql_conf(spark):
    again = create_session(conf={"spark.sql.shuffle.partitions": "3"})
    try:
        assert again is spark
        assert spark.conf.get("spark.sql.shuffle.partitions") == "3"
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", "2")


FRESH_PROCESS = """
import sys
from pathlib import Path
from sqlengine.session import create_session, stop_session
logs = Path(sys.argv[1])
spark = create_session(master="local[1]", log_dir=logs / "a", conf={"spark.ui.enabled": "true"})
print(spark.range(7).count())
import psutil
from pyspark import SparkContext
jvm = psutil.Process(SparkContext._gateway.proc.pid)
listening = {c.laddr.ip for c in jvm.net_connections("inet") if c.status == psutil.CONN_LISTEN}
print(bool(listening) and all(ip.replace("::ffff:", "") == "127.0.0.1" for ip in listening))
print(spark.sparkContext.uiWebUrl.startswith("http://127.0.0.1:"))
stop_session()
spark = create_session(master="local[1]", log_dir=logs / "b", conf={"state.backend.type": "rocksdb"})
print(spark.conf.get("spark.sql.streaming.stateStore.providerClass").rsplit(".", 1)[1])
df = spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 10).load()
q = (df.groupBy((df.value % 2).alias("k")).count().writeStream.format("memory")
     .queryName("agg").outputMode("complete").trigger(availableNow=True)
     .option("checkpointLocation", str(logs / "ck")).start())
q.awaitTermination()
print(sorted(tuple(r) for r in spark.table("agg").collect()))
stop_session()
"""


@pytest.mark.spark
@pytest.mark.slow
def test_a_fresh_process_prints_nothing_to_stderr(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", FRESH_PROCESS, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.stderr == ""
    # the JVM (web UI included) listens on loopback only
    assert proc.stdout.splitlines() == [
        "7", "True", "True", "RocksDBStateStoreProvider", "[(0, 5), (1, 5)]"
    ]
    assert proc.returncode == 0
    # what the JVM would have printed went to the log dir instead
    for run in ("a", "b"):
        assert (tmp_path / run / "log4j2.properties").is_file()
        assert (tmp_path / run / "spark.log").is_file()
        assert "log4j profile" not in (tmp_path / run / "jvm.out").read_text()


@pytest.mark.spark
def test_create_session_from_another_thread_reuses_the_running_one(spark):
    import threading

    found = []
    worker = threading.Thread(target=lambda: found.append(create_session()))
    worker.start()
    worker.join()
    assert found[0].sparkContext is spark.sparkContext
