"""One real Kafka broker for the whole test session (scripts/kafka_broker.py: KRaft, 127.0.0.1),
started on first use and stopped at the end; its jars come from Maven Central once."""

from __future__ import annotations

import pytest

from tests.scripts import SCRIPTS, load_script

SCRIPT = SCRIPTS / "kafka_broker.py"


def broker_module():
    return load_script("kafka_broker")


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory):
    mod = broker_module()
    try:
        broker = mod.Broker(partitions=1, workdir=tmp_path_factory.mktemp("kafka-broker")).start()
    except mod.BrokerError as err:
        pytest.fail(f"the test broker did not start: {err}", pytrace=False)
    yield broker
    broker.stop()


@pytest.fixture
def servers(kafka_broker) -> str:
    return kafka_broker.bootstrap


@pytest.fixture
def sql(spark, tmp_path):
    """SQL through an Engine of its own (a home under tmp_path) on the session's Spark."""
    from sqlengine.engine import Engine
    from tests.sqlengine.helpers import Sql

    return Sql(Engine(home=tmp_path / "home", spark=spark))
