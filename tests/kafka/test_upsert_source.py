"""Reading upsert-kafka: its records (upserts and tombstones of the primary key) become a changelog
through ChangelogNormalize, which the changelog operators read: an aggregation over the users'
current regions counts each user once, in its last region, and not at all once deleted; the
state of a key lives on in the checkpoint, so a resumed job retracts rows it saw in an earlier
run."""

from __future__ import annotations

import json
import time

import pytest

from tests.kafka.test_kafka_connector import consume, new_topic, produce

pytestmark = [pytest.mark.spark, pytest.mark.slow]


def user(uid: int, region: str | None) -> dict:
    """An upsert of user ``uid`` (a tombstone when ``region`` is None)."""
    key = json.dumps({"id": uid})
    return {"key": key, "value": None if region is None else {"id": uid, "name": f"u{uid}", "region": region}}


def users_ddl(servers: str, topic: str, bounded: bool = True) -> str:
    bound = "'scan.bounded.mode' = 'latest-offset', " if bounded else ""
    return (f"CREATE TABLE users (id INT, name STRING, region STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
            f"'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', {bound}"
            "'key.format' = 'json', 'value.format' = 'json');")


def test_the_last_row_of_every_key_is_the_table(sql, servers):
    topic = new_topic(servers)
    produce(servers, topic, [user(1, "eu"), user(2, "us"), user(3, "eu"), user(1, "us"), user(2, None), user(3, "eu"),
                             user(4, None)])
    sql.ddl(users_ddl(servers, topic))
    assert sorted(sql.rows("SELECT id, name, region FROM users", "streaming")) == [(1, "u1", "us"), (3, "u3", "eu")]
    # one count per user's current region: the update of user 1 moved it, the tombstone took user 2 out
    assert sorted(sql.rows("SELECT region, COUNT(*) AS n FROM users GROUP BY region", "streaming")) == [("eu", 1), ("us", 1)]


def test_a_resumed_job_retracts_what_an_earlier_run_saw(sql, servers):
    topic, out = new_topic(servers), new_topic(servers)
    sql.ddl(users_ddl(servers, topic, bounded=False))
    sql.ddl(f"CREATE TABLE per_region (region STRING, n BIGINT, PRIMARY KEY (region) NOT ENFORCED) WITH ("
            f"'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{servers}', "
            "'key.format' = 'json', 'value.format' = 'json');")
    insert = "INSERT INTO per_region SELECT region, COUNT(*) FROM users GROUP BY region"

    def table() -> dict[str, int]:
        final: dict[str, int] = {}
        for key, value in consume(servers, out):
            region = json.loads(key)["region"]
            if value is None:
                final.pop(region, None)
            else:
                final[region] = json.loads(value)["n"]
        return final

    def run_until(expected: dict[str, int]) -> None:
        job = sql.engine.start(sql.outcome(insert))  # the same statement resumes its checkpoint
        try:
            deadline = time.monotonic() + 120
            while table() != expected and not job.done and time.monotonic() < deadline:
                time.sleep(1)
            assert table() == expected, job.error_detail
        finally:
            job.stop()
            job.wait(60)

    produce(servers, topic, [user(1, "eu"), user(2, "eu"), user(3, "us")])
    run_until({"eu": 2, "us": 1})
    produce(servers, topic, [user(1, "us"), user(2, None), user(5, "apac")])
    # eu lost both users (user 1 moved to us, user 2 was deleted): its row became a tombstone
    run_until({"us": 2, "apac": 1})


def test_batch_mode_is_refused_before_anything_runs(sql, servers):
    from planner.errors import SqlError

    sql.ddl(users_ddl(servers, new_topic(servers)))
    with pytest.raises(SqlError, match="streaming mode only"):
        sql.rows("SELECT * FROM users", "batch")
