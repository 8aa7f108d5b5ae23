"""A Spark standalone cluster (a master and two workers, 1 core and 1 GiB each) and a Spark
Connect server, started on loopback from pyspark's own files (scripts/spark_cluster.py) on first
use and stopped at the end of the module that asked for them."""

from __future__ import annotations

import pytest

from tests.scripts import load_script


def cluster_module():
    return load_script("spark_cluster")


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    mod = cluster_module()
    try:
        cluster = mod.Cluster(workers=2, cores=1, memory="1g", workdir=tmp_path_factory.mktemp("spark-cluster")).start()
    except mod.ClusterError as err:
        pytest.fail(f"the test cluster did not start: {err}", pytrace=False)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    mod = cluster_module()
    try:
        server = mod.ConnectServer(master="local[2]", workdir=tmp_path_factory.mktemp("spark-connect"),
                                   conf={"spark.sql.shuffle.partitions": "2"}).start()
    except mod.ClusterError as err:
        pytest.fail(f"the Spark Connect server did not start: {err}", pytrace=False)
    yield server
    server.stop()
