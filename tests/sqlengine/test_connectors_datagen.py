import datetime as dt
import time
from decimal import Decimal

import pytest

from sqlengine.connectors import ConnectorError
from tests.sqlengine.streams import read, run_to_end, table

pytestmark = pytest.mark.spark

ALL_TYPES = [
    ("b", "BOOLEAN"), ("ti", "TINYINT"), ("si", "SMALLINT"), ("i", "INT"), ("bi", "BIGINT"),
    ("f", "FLOAT"), ("d", "DOUBLE"), ("dec", "DECIMAL(5, 2)"), ("wide", "DECIMAL(30, 4)"),
    ("s", "STRING"), ("vc", "VARCHAR(8)"), ("by", "BYTES"), ("day", "DATE"), ("t", "TIME(3)"),
    ("ts", "TIMESTAMP(3)"), ("ltz", "TIMESTAMP_LTZ(3)"), ("dts", "INTERVAL DAY TO SECOND"),
    ("arr", "ARRAY<INT>"), ("m", "MAP<STRING, DOUBLE>"), ("ms", "MULTISET<INT>"),
    ("r", "ROW<x INT, y ROW<z STRING>>"),
]


def dg(columns, **options):
    return table("gen", columns, connector="datagen", **options)


def test_bounded_stream_under_available_now_yields_exactly_n_rows_and_ends(spark, tmp_path):
    result = read(spark, dg([("id", "BIGINT")], **{"number-of-rows": "1234"}), tmp_path / "job")
    assert result.bounded is True
    rows, query = run_to_end(spark, result.df, tmp_path / "ck")
    assert len(rows) == 1234
    assert not query.isActive and query.exception() is None


def test_every_type_is_generated_with_the_declared_type(spark, tmp_path):
    from sqlengine.types import spark_type

    options = {"number-of-rows": "20", "fields.arr.length": "3", "fields.m.length": "2",
               "fields.ms.length": "2", "fields.s.length": "40", "fields.by.length": "4"}
    df = read(spark, dg(ALL_TYPES, **options), tmp_path / "job", streaming=False).df
    assert [f.dataType for f in df.schema.fields] == [spark_type(t) for _, t in ALL_TYPES]
    rows = df.collect()
    assert len(rows) == 20
    assert all(len(r.s) == 40 and len(r.vc) == 8 and len(r.by) == 4 for r in rows)
    assert all(len(r.arr) == 3 and 1 <= len(r.m) <= 2 and set(r.ms.values()) <= {1, 2, 3} for r in rows)
    assert len({r.s for r in rows}) == 20  # random strings differ


def test_ranges_lengths_and_null_rate(spark, tmp_path):
    options = {
        "number-of-rows": "2000", "seed": "7",
        "fields.i.min": "-3", "fields.i.max": "3",
        "fields.d.min": "0.5", "fields.d.max": "1.5",
        "fields.dec.min": "-1", "fields.dec.max": "1",
        "fields.s.length": "5", "fields.s.var-len": "true",
        "fields.n.null-rate": "0.25",
    }
    columns = [("i", "INT"), ("d", "DOUBLE"), ("dec", "DECIMAL(4, 2)"), ("s", "STRING"), ("n", "INT")]
    rows = read(spark, dg(columns, **options), tmp_path / "job", streaming=False).df.collect()
    assert {r.i for r in rows} == set(range(-3, 4))
    assert all(0.5 <= r.d <= 1.5 and Decimal("-1") <= r.dec <= Decimal("1") for r in rows)
    assert {len(r.s) for r in rows} == {1, 2, 3, 4, 5}
    nulls = sum(r.n is None for r in rows)
    assert 400 < nulls < 600  # 25% of 2000, fixed by the seed


def test_same_seed_same_rows_in_streaming_and_batch(spark, tmp_path):
    columns = [("a", "INT"), ("s", "STRING"), ("r", "ROW<x DOUBLE>")]
    tdef = dg(columns, **{"number-of-rows": "50", "seed": "42"})
    batch = read(spark, tdef, tmp_path / "job", streaming=False).df.collect()
    again = read(spark, tdef, tmp_path / "job", streaming=False).df.collect()
    stream, _ = run_to_end(spark, read(spark, tdef, tmp_path / "job").df, tmp_path / "ck")
    assert batch == again
    assert sorted(map(tuple, stream)) == sorted(map(tuple, batch))
    other = read(spark, dg(columns, **{"number-of-rows": "50", "seed": "43"}), tmp_path / "j", streaming=False)
    assert sorted(map(tuple, other.df.collect())) != sorted(map(tuple, batch))


def test_sequences_bound_the_source(spark, tmp_path):
    options = {
        "fields.id.kind": "sequence", "fields.id.start": "5", "fields.id.end": "14",
        "fields.ts.kind": "sequence", "fields.ts.start": "2024-01-01 00:00:00", "fields.ts.step": "1 min",
        "fields.code.kind": "sequence", "fields.code.start": "100", "fields.code.end": "1000",
    }
    columns = [("id", "BIGINT"), ("ts", "TIMESTAMP(3)"), ("code", "STRING")]
    result = read(spark, dg(columns, **options), tmp_path / "job")
    assert result.bounded is True
    rows, _ = run_to_end(spark, result.df, tmp_path / "ck")
    assert sorted((r.id, r.ts, r.code) for r in rows) == [
        (5 + k, dt.datetime(2024, 1, 1) + dt.timedelta(minutes=k), str(100 + k)) for k in range(10)
    ]


def test_unbounded_source_produces_rows_at_a_rate(spark, tmp_path):
    result = read(spark, dg([("x", "INT")], **{"rows-per-second": "50"}), tmp_path / "job")
    assert result.bounded is False
    query = (
        result.df.writeStream.format("memory").queryName("dg_unbounded")
        .option("checkpointLocation", str(tmp_path / "ck")).start()
    )
    try:
        deadline = time.monotonic() + 120
        while spark.table("dg_unbounded").count() == 0 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert spark.table("dg_unbounded").count() > 0
    finally:
        query.stop()


@pytest.mark.parametrize(
    "columns,options,message",
    [
        ([("x", "INT")], {}, r"Table `gen` \(option 'number-of-rows'\): the source is unbounded"),
        ([("x", "INT")], {"fields.y.kind": "random"}, r"names field `y`, which table `gen` lacks"),
        ([("x", "INT")], {"number-of-rows": "1", "fields.x.min": "5", "fields.x.max": "1"}, r"max \(1\) is below min \(5\)"),
        ([("x", "BOOLEAN")], {"number-of-rows": "1", "fields.x.kind": "sequence", "fields.x.start": "1", "fields.x.end": "2"}, r"a sequence cannot generate boolean"),
    ],
)
def test_configuration_errors_are_one_line(spark, tmp_path, columns, message, options):
    with pytest.raises(ConnectorError, match=message) as info:
        read(spark, dg(columns, **options), tmp_path / "job", streaming=False)
    assert "\n" not in str(info.value)


def test_metadata_columns_are_refused(spark, tmp_path):
    from catalog import Column, TableDef

    tdef = TableDef("gen", (Column("x", "INT"), Column("k", "STRING", kind="metadata")),
                    options={"connector": "datagen", "number-of-rows": "1"})
    with pytest.raises(ConnectorError, match="offers no metadata"):
        read(spark, tdef, tmp_path / "job")
