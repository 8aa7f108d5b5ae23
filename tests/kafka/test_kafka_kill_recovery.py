"""kill -9 in the middle of a Kafka stream, then `sqlengine run` again (tests/integration/kill.py):
a TUMBLE window aggregation into the filesystem sink ends with every row exactly once, and running
totals per user into upsert-kafka end as the table (replayed records are written again, and the
latest value of each key is still the right one)."""

from __future__ import annotations

import random
import uuid

import pytest

from tests.integration import kill

pytestmark = [pytest.mark.spark, pytest.mark.slow]

KILLS = 2
CASES = (kill.Case("kafka", "window", "fs"), kill.Case("kafka", "totals", "upsert"))


def test_killed_twice_kafka_into_files_and_upsert_kafka_loses_and_duplicates_nothing(tmp_path, kafka_broker) -> None:
    seed = random.randrange(1 << 30)
    chunks = kill.make_orders(seed, orders=500, chunks=20)
    servers = kafka_broker.bootstrap
    topic, prefix = f"orders-{uuid.uuid4().hex[:8]}", f"k{uuid.uuid4().hex[:8]}-"
    kill.produce(servers, topic, chunks, partitions=2)
    home = tmp_path / "home"
    home.mkdir()
    sql = home / "job.sql"
    per_batch = -(-sum(len(c) for c in chunks) // len(chunks))
    sql.write_text(kill.script(CASES, sinks=home / "sinks", servers=servers, topic=topic, topic_prefix=prefix,
                               per_trigger=per_batch))
    log = home / "runs.log"

    killed = kill.run_killed(home, sql, KILLS, random.Random(seed), max_delay=2.0, queries=2, log=log)

    where = f"seed {seed}, kills {killed.kills}, log {log}"
    assert len(killed.kills) == KILLS, f"the job ended before it was killed {KILLS} times: {where}"
    window, totals = CASES
    got, _uncommitted = kill.read_sink(home / "sinks" / window.name)
    want = kill.expected("window", chunks)
    assert kill.compare(want, got) == (0, 0), f"{window.name}: {kill.compare(want, got)} (lost, duplicated); {where}"
    table, records = kill.read_upsert(servers, f"{prefix}{totals.name}")
    assert table == kill.expected("totals", chunks), where
    assert records > len(table)  # updated batch by batch, each update a record of its key
