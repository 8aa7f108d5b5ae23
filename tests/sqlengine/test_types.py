import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql import types as T

from catalog import Column
from sqlengine.types import UnsupportedType, spark_schema, spark_type

CASES = [
    ("BOOLEAN", T.BooleanType()),
    ("TINYINT", T.ByteType()),
    ("SMALLINT", T.ShortType()),
    ("INT", T.IntegerType()),
    ("INTEGER", T.IntegerType()),
    ("BIGINT", T.LongType()),
    ("FLOAT", T.FloatType()),
    ("DOUBLE", T.DoubleType()),
    ("DECIMAL", T.DecimalType(10, 0)),
    ("DECIMAL(12, 2)", T.DecimalType(12, 2)),
    ("NUMERIC(5)", T.DecimalType(5, 0)),
    ("CHAR(3)", T.StringType()),
    ("VARCHAR(10)", T.StringType()),
    ("STRING", T.StringType()),
    ("BINARY(4)", T.BinaryType()),
    ("VARBINARY", T.BinaryType()),
    ("BYTES", T.BinaryType()),
    ("DATE", T.DateType()),
    ("TIME", T.TimeType(0)),
    ("TIME(3)", T.TimeType(3)),
    ("TIME(9)", T.TimeType(6)),
    ("TIMESTAMP", T.TimestampNTZType()),
    ("TIMESTAMP(3)", T.TimestampNTZType()),
    ("TIMESTAMP(9) WITHOUT TIME ZONE", T.TimestampNTZType()),
    ("TIMESTAMP_LTZ(3)", T.TimestampType()),
    ("TIMESTAMP(3) WITH LOCAL TIME ZONE", T.TimestampType()),
    ("INTERVAL YEAR TO MONTH", T.YearMonthIntervalType(0, 1)),
    ("INTERVAL MONTH", T.YearMonthIntervalType(1, 1)),
    ("INTERVAL DAY TO SECOND", T.DayTimeIntervalType(0, 3)),
    ("INTERVAL HOUR TO MINUTE", T.DayTimeIntervalType(1, 2)),
    ("INTERVAL SECOND", T.DayTimeIntervalType(3, 3)),
    ("ARRAY<INT>", T.ArrayType(T.IntegerType(), True)),
    ("INT ARRAY", T.ArrayType(T.IntegerType(), True)),
    ("MAP<STRING, BIGINT>", T.MapType(T.StringType(), T.LongType(), True)),
    ("MULTISET<STRING>", T.MapType(T.StringType(), T.IntegerType(), False)),
    (
        "ROW<a INT NOT NULL, `b c` ROW<d DOUBLE>, e ARRAY<ROW<f STRING>>>",
        T.StructType(
            [
                T.StructField("a", T.IntegerType(), False),
                T.StructField("b c", T.StructType([T.StructField("d", T.DoubleType())])),
                T.StructField(
                    "e", T.ArrayType(T.StructType([T.StructField("f", T.StringType())]))
                ),
            ]
        ),
    ),
    ("ROW(a INT, b STRING)", T.StructType([T.StructField("a", T.IntegerType()), T.StructField("b", T.StringType())])),
]


@pytest.mark.parametrize("flink,spark", CASES, ids=[c[0] for c in CASES])
def test_spark_type(flink, spark):
    assert spark_type(flink) == spark


def test_parsed_datatype_is_accepted():
    from planner.dialect import parse_type

    assert spark_type(parse_type("ARRAY<BIGINT>")) == T.ArrayType(T.LongType())


@pytest.mark.parametrize("text", ["RAW('java.lang.Object', 'AA==')", "GEOMETRY", "STRUCTURED<x>"])
def test_unsupported_type_names_the_type(text):
    with pytest.raises(UnsupportedType) as info:
        spark_type(text)
    message = str(info.value)
    assert "\n" not in message
    assert text.split("(")[0].split("<")[0] in message


def test_spark_schema_keeps_order_names_and_nullability():
    schema = spark_schema(
        [Column("id", "BIGINT", nullable=False), Column("tags", "MULTISET<STRING>")]
    )
    assert schema == T.StructType(
        [
            T.StructField("id", T.LongType(), False),
            T.StructField("tags", T.MapType(T.StringType(), T.IntegerType(), False), True),
        ]
    )


def test_spark_schema_rejects_untyped_columns():
    with pytest.raises(UnsupportedType, match="`c` has no declared type"):
        spark_schema([Column("c", None, kind="computed", expr="a + 1")])


@pytest.mark.spark
def test_declared_schema_reads_real_json(spark, tmp_path):
    (tmp_path / "in.json").write_text(
        '{"b": true, "d": "12.50", "t": "12:34:56.789", "ts": "2024-01-02 03:04:05.123",'
        ' "ltz": "2024-01-02T03:04:05Z", "day": "2024-02-29", "r": {"x": 1, "y": ["a"]},'
        ' "m": {"k": 2}}\n'
    )
    cols = [
        Column("b", "BOOLEAN"),
        Column("d", "DECIMAL(5, 2)"),
        Column("t", "TIME(3)"),
        Column("ts", "TIMESTAMP(3)"),
        Column("ltz", "TIMESTAMP_LTZ(3)"),
        Column("day", "DATE"),
        Column("r", "ROW<x INT, y ARRAY<STRING>>"),
        Column("m", "MULTISET<STRING>"),
    ]
    row = spark.read.schema(spark_schema(cols)).json(str(tmp_path)).collect()[0]
    assert row.b is True
    assert row.d == Decimal("12.50")
    assert row.t == dt.time(12, 34, 56, 789000)
    assert row.ts == dt.datetime(2024, 1, 2, 3, 4, 5, 123000)
    # pyspark hands TimestampType back as a naive local datetime: compare instants
    assert row.ltz.timestamp() == dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC).timestamp()
    assert row.day == dt.date(2024, 2, 29)
    assert (row.r.x, row.r.y) == (1, ["a"])
    assert row.m == {"k": 2}
