"""Where Spark runs, decided without Spark: the cluster settings of a driver we start, the
Spark Connect URL, the command line's --master/--remote."""

from __future__ import annotations

import pytest

from repl.cli import build_parser
from sqlengine.session import SESSION_SQL, local_conf
from sqlengine.spark_connect import ConnectError, address, connect


def test_a_cluster_on_loopback_reaches_the_driver_on_loopback(tmp_path):
    conf = local_conf("spark://127.0.0.1:7077", {}, "app", tmp_path / "log4j2.properties")
    assert conf["spark.master"] == "spark://127.0.0.1:7077"
    assert conf["spark.driver.host"] == conf["spark.driver.bindAddress"] == "127.0.0.1"
    assert "spark.driver.memory" not in conf  # the driver is not the whole cluster
    assert all(conf[k] == v for k, v in SESSION_SQL.items())


def test_a_remote_cluster_leaves_the_driver_address_to_spark(tmp_path):
    conf = local_conf("spark://spark-master.example:7077", {}, "app", tmp_path / "log4j2.properties")
    assert "spark.driver.host" not in conf and "spark.driver.bindAddress" not in conf
    assert conf["spark.sql.session.timeZone"] == "UTC"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sc://127.0.0.1:15003", ("127.0.0.1", 15003)),
        ("sc://spark.example", ("spark.example", 15002)),
        ("sc://h:1/;token=abc;use_ssl=true", ("h", 1)),
    ],
)
def test_spark_connect_addresses(url, expected):
    assert address(url) == expected


@pytest.mark.parametrize("url", ["http://h:15002", "sc://", "sc://h:port", "127.0.0.1:15002"])
def test_not_a_spark_connect_url(url):
    with pytest.raises(ConnectError, match="not a Spark Connect URL"):
        address(url)


def test_no_server_is_said_at_once():
    import socket

    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(ConnectError, match=f"no Spark Connect server at 127.0.0.1:{port}"):
            connect(f"sc://127.0.0.1:{port}", "app", {})


def test_master_and_remote_exclude_each_other(capsys):
    from repl.cli import UsageError

    with pytest.raises(UsageError, match="not allowed with argument"):
        build_parser().parse_args(["run", "--master", "local[2]", "--remote", "sc://h:1", "f.sql"])


def test_remote_defaults_to_spark_remote(monkeypatch):
    monkeypatch.setenv("SPARK_REMOTE", "sc://127.0.0.1:15009")
    args = build_parser().parse_args(["run", "f.sql", "--conf", "spark.executor.memory=2g"])
    assert args.remote == "sc://127.0.0.1:15009"
    assert args.conf == ["spark.executor.memory=2g"]
    assert build_parser().parse_args(["--conf", "a=b"]).conf == ["a=b"]  # the shell takes it too


def test_progress_as_spark_connect_reports_it():
    """Spark Connect's progress json has no totals (only each source's) and observed metrics as
    values beside their schema: the snapshot reads both."""
    from sqlengine.progress import from_progress

    data = {
        "batchId": 3, "timestamp": "2026-11-26T11:38:57.551Z", "durationMs": {"triggerExecution": 120},
        "eventTime": {"watermark": "2024-01-01T00:00:24.000Z"}, "stateOperators": [],
        "sources": [{"numInputRows": 30, "inputRowsPerSecond": 5.0, "processedRowsPerSecond": 250.0},
                    {"numInputRows": 2, "inputRowsPerSecond": 1.0, "processedRowsPerSecond": 10.0}],
        "observedMetrics": {"m": {"values": [90, 4], "schema": {"type": "struct", "fields": [
            {"name": "keys", "type": "long"}, {"name": "late", "type": "long"}]}}},
    }
    snap = from_progress("q", data)
    assert (snap.batch_id, snap.input_rows, snap.input_rps, snap.processed_rps) == (3, 32, 6.0, 260.0)
    assert snap.metrics == {"m.keys": 90, "m.late": 4}
