"""The kafka and upsert-kafka connectors against a real broker (the `kafka_broker` fixture):
reads with metadata columns, startup and bounded modes, malformed records, the kafka sink and
the upsert-kafka sink read back."""

from __future__ import annotations

import datetime
import decimal
import json
import time
import uuid

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from planner.errors import SqlError
from tests.sqlengine.helpers import JobFailed

pytestmark = [pytest.mark.spark, pytest.mark.slow]

T0 = 1_700_000_000_000  # record timestamps, epoch millis


def new_topic(servers: str, partitions: int = 1) -> str:
    from kafka.admin import KafkaAdminClient, NewTopic

    name = f"t-{uuid.uuid4().hex[:10]}"
    admin = KafkaAdminClient(bootstrap_servers=servers)
    try:
        admin.create_topics([NewTopic(name, partitions, 1)])
    finally:
        admin.close()
    return name


def produce(servers: str, topic: str, records: list[dict]) -> None:
    """Each record: value (bytes, str or a dict as JSON, None for a tombstone), optional key,
    partition, timestamp_ms, headers."""
    producer = KafkaProducer(bootstrap_servers=servers)
    for r in records:
        value = r.get("value")
        if isinstance(value, dict):
            value = json.dumps(value).encode()
        elif isinstance(value, str):
            value = value.encode()
        key = r.get("key")
        producer.send(topic, value=value, key=key.encode() if isinstance(key, str) else key,
                      partition=r.get("partition", 0), timestamp_ms=r.get("timestamp_ms"),
                      headers=r.get("headers"))
    producer.flush()
    producer.close()


def consume(servers: str, topic: str) -> list[tuple[bytes | None, bytes | None]]:
    consumer = KafkaConsumer(topic, bootstrap_servers=servers, auto_offset_reset="earliest",
                             consumer_timeout_ms=3000)
    out = [(m.key, m.value) for m in consumer]
    consumer.close()
    return out


def wait_committed(servers: str, group: str, want: dict[int, int], timeout: float = 30) -> None:
    """Until the broker reports the group's committed offsets (partition -> offset) as given."""
    from kafka.admin import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=servers)
    try:
        deadline = time.monotonic() + timeout
        while True:
            found = {tp.partition: m.offset for tp, m in admin.list_group_offsets(group).get(group, {}).items()}
            if found == want or time.monotonic() > deadline:
                assert found == want, f"the group's committed offsets: {found}"
                return
            time.sleep(0.2)
    finally:
        admin.close()


def source_ddl(name: str, servers: str, topic: str, columns: str, **options: str) -> str:
    opts = {"connector": "kafka", "topic": topic, "properties.bootstrap.servers": servers,
            "scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset", "format": "json", **options}
    with_ = ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())
    return f"CREATE TABLE {name} ({columns}) WITH ({with_});"


ORDERS = [
    {"key": "u1", "value": {"id": 1, "user_id": "u1", "amount": 10.0}, "timestamp_ms": T0, "headers": [("src", b"a")]},
    {"key": "u2", "value": {"id": 2, "user_id": "u2", "amount": 5.0}, "timestamp_ms": T0 + 1000},
    {"key": "u1", "value": {"id": 3, "user_id": "u1", "amount": 7.5}, "timestamp_ms": T0 + 2000},
]
ORDER_COLUMNS = "id BIGINT, user_id STRING, amount DOUBLE"


def test_a_json_topic_with_metadata_columns(sql, servers):
    topic = new_topic(servers)
    produce(servers, topic, ORDERS)
    sql.ddl(source_ddl("orders", servers, topic, ORDER_COLUMNS + ", "
                       "ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
                       "tp STRING METADATA FROM 'topic' VIRTUAL, p INT METADATA FROM 'partition' VIRTUAL, "
                       "o BIGINT METADATA FROM 'offset' VIRTUAL, tt STRING METADATA FROM 'timestamp-type' VIRTUAL, "
                       "h MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL"))
    rows = sql.rows("SELECT id, user_id, amount, CAST(ts AS BIGINT), tp, p, o, tt, CAST(h['src'] AS STRING) FROM orders", "streaming")
    assert sorted(rows) == [
        (1, "u1", 10.0, T0 // 1000, topic, 0, 0, "CreateTime", "a"),
        (2, "u2", 5.0, (T0 + 1000) // 1000, topic, 0, 1, "CreateTime", None),
        (3, "u1", 7.5, (T0 + 2000) // 1000, topic, 0, 2, "CreateTime", None),
    ]
    assert sorted(sql.rows("SELECT user_id, SUM(amount) FROM orders GROUP BY user_id", "streaming")) == [("u1", 17.5), ("u2", 5.0)]


def test_an_event_time_window_over_kafka_record_timestamps(sql, servers):
    topic = new_topic(servers)
    produce(servers, topic, ORDERS)
    sql.ddl(source_ddl("orders", servers, topic, ORDER_COLUMNS + ", ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
                       "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND"))
    rows = sql.rows("SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '2' SECOND)) "
                    "GROUP BY window_start, window_end", "streaming")
    assert sorted(c for _, c in rows) == [1, 2]


def test_key_fields_and_a_csv_value(sql, servers):
    topic = new_topic(servers)
    produce(servers, topic, [{"key": '{"k":"a"}', "value": "1;x"}, {"key": '{"k":"b"}', "value": "2;y"}])
    sql.ddl(source_ddl("t", servers, topic, "k STRING, n INT, s STRING", **{
        "format": None, "value.format": "csv", "value.csv.field-delimiter": ";", "key.format": "json",
        "key.fields": "k", "value.fields-include": "EXCEPT_KEY"}).replace("'format' = 'None', ", ""))
    assert sorted(sql.rows("SELECT k, n, s FROM t", "streaming")) == [("a", 1, "x"), ("b", 2, "y")]


@pytest.mark.parametrize(("mode", "expected"), [("skip", [1, 3]), ("fail", "malformed")])
def test_a_malformed_record(sql, servers, mode, expected):
    topic = new_topic(servers)
    produce(servers, topic, [{"value": {"id": 1}}, {"value": "{not json"}, {"value": {"id": 3}}])
    sql.ddl(source_ddl("t", servers, topic, "id INT", **{"errors.mode": mode}))
    if isinstance(expected, list):
        assert sorted(r[0] for r in sql.rows("SELECT id FROM t", "streaming")) == expected
    else:
        with pytest.raises(JobFailed, match=r"(?i)malformed"):
            sql.rows("SELECT id FROM t", "streaming")


def test_flink_ignore_parse_errors_nulls_what_does_not_convert(sql, servers):
    """As Flink reads the topic: a field that does not convert is NULL and the record stays; a
    value that is no JSON object is skipped."""
    topic = new_topic(servers)
    produce(servers, topic, [{"value": {"id": 1}}, {"value": "{not json"}, {"value": {"id": "x"}}, {"value": {"id": 3}}])
    sql.ddl(source_ddl("t", servers, topic, "id INT", **{"json.ignore-parse-errors": "true"}))
    assert sorted((r[0] for r in sql.rows("SELECT id FROM t", "streaming")), key=str) == [1, 3, None]


def test_key_and_value_each_read_their_own_ignore_parse_errors(sql, servers):
    """As in Flink, the key format's flag and the value format's are each their own: a key field
    that does not convert is NULL when the key's flag is set, and fails the job when only the
    value's is."""
    topic = new_topic(servers)
    produce(servers, topic, [{"key": '{"k": 1}', "value": {"n": 1}}, {"key": '{"k": "x"}', "value": {"n": 2}}])

    def ddl(name: str, flag: str) -> str:
        return source_ddl(name, servers, topic, "k INT, n INT", **{
            "format": None, "value.format": "json", "key.format": "json", "key.fields": "k",
            "value.fields-include": "EXCEPT_KEY", flag: "true"}).replace("'format' = 'None', ", "")

    sql.ddl(ddl("by_key", "key.json.ignore-parse-errors"))
    assert sorted(sql.rows("SELECT k, n FROM by_key", "streaming"), key=str) == [(1, 1), (None, 2)]
    sql.ddl(ddl("by_value", "value.json.ignore-parse-errors"))
    with pytest.raises(JobFailed, match=r"(?i)malformed"):
        sql.rows("SELECT k, n FROM by_value", "streaming")


def test_startup_and_bounded_modes(sql, servers):
    topic = new_topic(servers, partitions=2)
    produce(servers, topic, [{"value": {"id": i}, "partition": i % 2, "timestamp_ms": T0 + i * 1000} for i in range(10)])
    # partition 0 holds ids 0,2,4,6,8 at offsets 0..4; partition 1 ids 1,3,5,7,9

    def ids(name: str, **options: str) -> list[int]:
        sql.ddl(source_ddl(name, servers, topic, "id INT", **options))
        return sorted(r[0] for r in sql.rows(f"SELECT id FROM {name}", "streaming"))

    assert ids("a") == list(range(10))
    assert ids("b", **{"scan.startup.mode": "latest-offset"}) == []
    assert ids("c", **{"scan.startup.mode": "timestamp", "scan.startup.timestamp-millis": str(T0 + 6000)}) == [6, 7, 8, 9]
    assert ids("d", **{"scan.startup.mode": "specific-offsets",
                       "scan.startup.specific-offsets": "partition:0,offset:3;partition:1,offset:4"}) == [6, 8, 9]
    assert ids("e", **{"scan.bounded.mode": "timestamp", "scan.bounded.timestamp-millis": str(T0 + 4000)}) == [0, 1, 2, 3]
    assert ids("f", **{"scan.bounded.mode": "specific-offsets",
                       "scan.bounded.specific-offsets": "partition:0,offset:1;partition:1,offset:2"}) == [0, 1, 3]
    group = f"g-{uuid.uuid4().hex[:6]}"
    consumer = KafkaConsumer(bootstrap_servers=servers, group_id=group, enable_auto_commit=False)
    from kafka.structs import OffsetAndMetadata

    consumer.commit({TopicPartition(topic, 0): OffsetAndMetadata(4, "", -1), TopicPartition(topic, 1): OffsetAndMetadata(3, "", -1)})
    consumer.close()
    wait_committed(servers, group, {0: 4, 1: 3})
    assert ids("g", **{"scan.startup.mode": "group-offsets", "properties.group.id": group}) == [7, 8, 9]


def test_max_offsets_per_trigger_splits_a_bounded_read_into_micro_batches(sql, servers):
    topic = new_topic(servers, partitions=2)
    produce(servers, topic, [{"value": {"id": i}, "partition": i % 2} for i in range(20)])
    sql.ddl(source_ddl("t", servers, topic, "id INT", **{"scan.max-offsets-per-trigger": "6"}))
    job = sql.job("SELECT id FROM t", "streaming")
    assert sorted(r[0] for r in job.result.rows()) == list(range(20))
    # 20 records, at most 6 a batch: 4 batches or more (availableNow honours the limit)
    batches = [s.input_rows for s in job.history if s.input_rows]
    assert sum(batches) == 20 and max(batches) <= 6 and len(batches) >= 4, batches


def test_group_offsets_without_a_commit_say_what_to_set(sql, servers):
    topic = new_topic(servers)
    produce(servers, topic, [{"value": {"id": 1}}])
    sql.ddl(source_ddl("t", servers, topic, "id INT", **{"scan.startup.mode": "group-offsets", "properties.group.id": "nobody"}))
    with pytest.raises(SqlError, match=r"has no committed offset for .*properties.auto.offset.reset") as info:
        sql.rows("SELECT id FROM t", "streaming")
    assert "1:16" in str(info.value)  # at the table, before any job starts
    sql.ddl(source_ddl("u", servers, topic, "id INT", **{"scan.startup.mode": "group-offsets", "properties.group.id": "nobody",
                                                          "properties.auto.offset.reset": "earliest"}))
    assert sql.rows("SELECT id FROM u", "streaming") == [(1,)]


def test_the_kafka_sink_writes_keys_and_values(sql, servers):
    src, out = new_topic(servers), new_topic(servers)
    produce(servers, src, ORDERS)
    sql.ddl(source_ddl("orders", servers, src, ORDER_COLUMNS))
    sql.ddl(f"CREATE TABLE big (id BIGINT, user_id STRING, amount DOUBLE) WITH ('connector' = 'kafka', 'topic' = '{out}', "
            f"'properties.bootstrap.servers' = '{servers}', 'key.format' = 'raw', 'key.fields' = 'user_id', "
            "'value.format' = 'csv', 'value.fields-include' = 'EXCEPT_KEY');")
    sql.job("INSERT INTO big SELECT id, user_id, amount FROM orders WHERE amount > 6", "streaming")
    assert sorted(consume(servers, out)) == [(b"u1", b"1,10.0"), (b"u1", b"3,7.5")]


def test_the_upsert_kafka_sink_holds_the_final_table_and_is_idempotent(sql, servers):
    src, out = new_topic(servers), new_topic(servers)
    produce(servers, src, ORDERS)
    sql.ddl(source_ddl("orders", servers, src, ORDER_COLUMNS))
    sql.ddl(f"CREATE TABLE totals (user_id STRING, total DOUBLE, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) "
            f"WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{servers}', "
            "'key.format' = 'json', 'value.format' = 'json');")
    insert = "INSERT INTO totals SELECT user_id, SUM(amount), COUNT(*) FROM orders GROUP BY user_id"
    sql.job(insert, "streaming")
    sql.job(insert.replace("GROUP BY", "AND 1 = 1 GROUP BY").replace("FROM orders", "FROM orders WHERE TRUE"), "streaming")  # a replay

    def table() -> dict[str, dict]:
        final: dict[str, dict] = {}
        for key, value in consume(servers, out):
            assert key is not None
            k = json.loads(key)["user_id"]
            if value is None:
                final.pop(k, None)
            else:
                final[k] = json.loads(value)
        return final

    assert table() == {"u1": {"user_id": "u1", "total": 17.5, "n": 2}, "u2": {"user_id": "u2", "total": 5.0, "n": 1}}
    assert len(consume(servers, out)) == 4  # each run wrote each key once: written again, the same table


def test_exactly_once_is_refused_with_the_reason(sql, servers):
    sql.ddl(f"CREATE TABLE k (a INT) WITH ('connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = '{servers}', "
            "'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once');")
    sql.ddl(f"CREATE TABLE s (a INT) WITH ('connector' = 'kafka', 'topic' = 'y', 'properties.bootstrap.servers' = '{servers}', "
            "'format' = 'json', 'scan.bounded.mode' = 'latest-offset', 'scan.startup.mode' = 'earliest-offset');")
    start = time.monotonic()
    with pytest.raises(Exception, match="has no transactions"):
        sql.job("INSERT INTO k SELECT a FROM s", "streaming")
    assert time.monotonic() - start < 60


def test_a_changelog_into_upsert_kafka_deletes_with_tombstones(sql, servers):
    """A continuous Top-2: the fourth order pushes (u1, 3) out of u1's top two in a later batch,
    and its row becomes a tombstone."""
    src, out = new_topic(servers), new_topic(servers)
    produce(servers, src, ORDERS)
    sql.ddl(source_ddl("orders", servers, src, ORDER_COLUMNS).replace("'scan.bounded.mode' = 'latest-offset', ", ""))
    sql.ddl(f"CREATE TABLE top2 (user_id STRING, id BIGINT, amount DOUBLE, PRIMARY KEY (user_id, id) NOT ENFORCED) "
            f"WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{servers}', "
            "'key.format' = 'json', 'value.format' = 'json');")
    job = sql.engine.start(sql.outcome("INSERT INTO top2 SELECT user_id, id, amount FROM (SELECT *, ROW_NUMBER() OVER "
                                       "(PARTITION BY user_id ORDER BY amount DESC) AS rn FROM orders) WHERE rn <= 2"))

    def records(done) -> list[tuple]:
        deadline = time.monotonic() + 120
        got: list[tuple] = []
        while time.monotonic() < deadline and not done(got) and not job.done:
            got = consume(servers, out)
        assert done(got), (got, job.error_detail)
        return got

    try:
        records(lambda got: len(got) >= 3)
        produce(servers, src, [{"key": "u1", "value": {"id": 4, "user_id": "u1", "amount": 12.0}}])
        got = records(lambda got: any(v is None for _, v in got))
    finally:
        job.stop()
        job.wait(60)
    final: dict[tuple, float] = {}
    tombstones = []
    for key, value in got:
        k = json.loads(key)
        if value is None:
            tombstones.append((k["user_id"], k["id"]))
            final.pop((k["user_id"], k["id"]), None)
        else:
            final[(k["user_id"], k["id"])] = json.loads(value)["amount"]
    assert final == {("u1", 1): 10.0, ("u1", 4): 12.0, ("u2", 2): 5.0}
    assert ("u1", 3) in tombstones


def test_avro_keys_and_values_round_trip_in_flinks_encoding(sql, servers, tmp_path):
    """Flink's 'avro' format: plain Avro binary of the columns, a nullable column as the union
    ["null", type]. The bytes are checked by hand for one record, then read back by the source."""
    topic = new_topic(servers)
    options = (f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{servers}', "
               "'key.format' = 'avro', 'key.fields' = 'id', 'value.format' = 'avro', "
               "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'")
    sql.ddl(f"CREATE TABLE av (id INT NOT NULL, name STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)) WITH ({options});")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.json").write_text('{"id": 1, "name": "a", "amount": 1.5, "ts": "2024-01-01 00:00:00"}\n{"id": 2}\n')
    sql.ddl(f"CREATE TABLE src (id INT NOT NULL, name STRING, amount DECIMAL(10, 2), ts TIMESTAMP(3)) WITH ("
            f"'connector' = 'filesystem', 'path' = '{tmp_path / 'src'}', 'format' = 'json');")
    sql.job("INSERT INTO av SELECT * FROM src", "streaming")
    records = dict(consume(servers, topic))
    # key: id (NOT NULL: no union) 1 -> zigzag 02; value: id 02, then name: branch 1 (02), length 1 (02), 'a';
    # amount: branch 1, 2 bytes (04) of the unscaled 150 (00 96); ts: branch 1, millis as a zigzag long
    assert records[b"\x02"][:9] == bytes.fromhex("02" "02" "02" "61" "02" "04" "0096") + b"\x02"
    assert records[b"\x04"] == bytes.fromhex("04" "00" "00" "00")  # id 2, then three NULLs (branch 0)
    assert sorted(sql.rows("SELECT id, name, amount, ts FROM av", "streaming"), key=lambda r: r[0]) == [
        (1, "a", decimal.Decimal("1.50"), datetime.datetime(2024, 1, 1)),
        (2, None, None, None),
    ]
