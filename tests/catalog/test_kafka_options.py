"""The kafka and upsert-kafka connectors' options: Flink's names accepted, mistakes named."""

from __future__ import annotations

import pytest

from catalog import Catalog
from catalog.connectors import spec_of
from catalog.connectors.kafka import key_fields, parse_offsets, value_fields
from catalog.options import validate_options
from planner.statements.script import parse_script
from planner.statements.session import PlannerSession

SERVERS = "'properties.bootstrap.servers' = '127.0.0.1:9092'"


def table(ddl: str):
    session = PlannerSession(Catalog.in_memory())
    for stmt in parse_script(ddl).statements:
        session.execute(stmt)
    return session.catalog.get_table(session.catalog.names("table")[0])


def problems(ddl: str) -> list[str]:
    return [p.message for p in validate_options(table(ddl))]


def kafka(cols: str, opts: str) -> str:
    return f"CREATE TABLE t ({cols}) WITH ('connector' = 'kafka', {SERVERS}, {opts});"


def test_a_flink_kafka_source_is_accepted():
    ddl = kafka(
        "id BIGINT, name STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', "
        "p INT METADATA FROM 'partition' VIRTUAL, h MAP<STRING, BYTES> METADATA FROM 'headers'",
        "'topic' = 'a;b', 'properties.group.id' = 'g', 'properties.sasl.jaas.config' = 'x', "
        "'scan.startup.mode' = 'group-offsets', 'format' = 'json', 'json.ignore-parse-errors' = 'true'",
    )
    assert problems(ddl) == []
    t = table(ddl)
    assert not spec_of(t).bounded(t)
    assert t.options["properties.sasl.jaas.config"] == "x"
    assert t.masked_options()["properties.sasl.jaas.config"] != "x"  # masked wherever shown


def test_key_and_value_formats_with_their_prefixed_options():
    ddl = kafka(
        "k STRING, v INT",
        "'topic' = 'a', 'key.format' = 'csv', 'key.fields' = 'k', 'key.csv.field-delimiter' = ';', "
        "'value.format' = 'json', 'value.json.fail-on-missing-field' = 'false', 'value.fields-include' = 'EXCEPT_KEY'",
    )
    assert problems(ddl) == []
    t = table(ddl)
    assert key_fields(t) == ("k",) and value_fields(t) == ("v",)


@pytest.mark.parametrize(
    ("opts", "expected"),
    [
        ("'format' = 'json'", "needs exactly one of 'topic' and 'topic-pattern'"),
        ("'topic' = 'a', 'topic-pattern' = 'a.*', 'format' = 'json'", "needs exactly one of"),
        ("'topic' = 'a'", "needs the option 'format' (or 'value.format')"),
        ("'topic' = 'a', 'format' = 'json', 'value.format' = 'json'", "Set 'format' or 'value.format', not both"),
        ("'topic' = 'a', 'format' = 'avro2'", "'avro2' is not one of json, csv, raw"),
        ("'topic' = 'a', 'format' = 'json', 'scan.startup.mode' = 'timestamp'", "needs 'scan.startup.timestamp-millis'"),
        ("'topic' = 'a', 'format' = 'json', 'scan.startup.mode' = 'group-offsets'", "needs 'properties.group.id'"),
        ("'topic' = 'a', 'format' = 'json', 'scan.bounded.mode' = 'specific-offsets', "
         "'scan.bounded.specific-offsets' = 'partition:0'", "is not 'partition:N,offset:M'"),
        ("'topic' = 'a', 'format' = 'json', 'key.fields' = 'k'", "'key.fields' needs a 'key.format'"),
        ("'topic' = 'a', 'format' = 'json', 'key.format' = 'json', 'key.fields' = 'nope'", "Key field `nope` is not a column"),
        ("'topic' = 'a', 'value.format' = 'json', 'value.csv.field-delimiter' = ';'",
         "is for value format 'csv', but the value format is 'json'"),
        ("'topic' = 'a', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once'", "has no transactions"),
        ("'topic' = 'a', 'format' = 'raw'", "The 'raw' format holds one column; the value has 2"),
        ("'topic' = 'a', 'format' = 'json', 'scan.startup.mod' = 'x'", "Did you mean 'scan.startup.mode'?"),
        ("'topic' = 'a', 'format' = 'json', 'scan.max-offsets-per-trigger' = '0'", "must be at least 1"),
        ("'topic' = 'a', 'format' = 'json', 'scan.max-offsets-per-trigger' = 'many'", "'many' is not a long"),
    ],
)
def test_kafka_option_mistakes_are_named(opts, expected):
    found = problems(kafka("k STRING, v INT", opts))
    assert any(expected in m for m in found), found


def test_any_properties_key_is_passed_through():
    assert problems(kafka("v STRING", "'topic' = 'a', 'format' = 'raw', 'properties.max.poll.records' = '10'")) == []


def test_an_unknown_metadata_key_is_named():
    found = problems(kafka("v STRING, x INT METADATA FROM 'nope'", "'topic' = 'a', 'format' = 'raw'"))
    assert any("reads 'nope', which the kafka connector does not offer" in m for m in found), found


def test_a_limit_of_records_per_micro_batch_is_ours_and_accepted():
    assert problems(kafka("v STRING", "'topic' = 'a', 'format' = 'raw', 'scan.max-offsets-per-trigger' = '500'")) == []


def test_a_bounded_read_comes_in_one_micro_batch_unless_limited():
    t = table(kafka("v STRING", "'topic' = 'a', 'format' = 'raw', 'scan.bounded.mode' = 'latest-offset'"))
    assert spec_of(t).bounded(t) and spec_of(t).one_batch(t)  # its end-of-input marker rides along
    limited = table(kafka("v STRING", "'topic' = 'a', 'format' = 'raw', 'scan.bounded.mode' = 'latest-offset', "
                                      "'scan.max-offsets-per-trigger' = '10'"))
    assert spec_of(limited).bounded(limited) and not spec_of(limited).one_batch(limited)
    endless = table(kafka("v STRING", "'topic' = 'a', 'format' = 'raw'"))
    assert not spec_of(endless).one_batch(endless)


def test_upsert_kafka_needs_a_primary_key_and_both_formats():
    base = "CREATE TABLE u (k STRING, n BIGINT{pk}) WITH ('connector' = 'upsert-kafka', " + SERVERS + ", 'topic' = 'u'{fmt});"
    ok = base.format(pk=", PRIMARY KEY (k) NOT ENFORCED", fmt=", 'key.format' = 'json', 'value.format' = 'json'")
    assert problems(ok) == []
    t = table(ok)
    assert spec_of(t).upsert_source and spec_of(t).accepts_updates and key_fields(t) == ("k",)
    no_pk = problems(base.format(pk="", fmt=", 'key.format' = 'json', 'value.format' = 'json'"))
    assert any("needs a PRIMARY KEY" in m for m in no_pk), no_pk
    no_fmt = problems(base.format(pk=", PRIMARY KEY (k) NOT ENFORCED", fmt=""))
    assert any("needs the option 'key.format'" in m for m in no_fmt), no_fmt


def test_parse_offsets():
    assert parse_offsets("partition:0,offset:42;partition:1,offset:300") == {0: 42, 1: 300}
    with pytest.raises(ValueError):
        parse_offsets("partition:x,offset:1")
