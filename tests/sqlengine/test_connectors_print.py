import datetime as dt
from decimal import Decimal

import pytest
from pyspark.sql import types as T

from catalog import Column, TableDef
from sqlengine.connectors import ConnectorError, SinkRequest, get_connector
from sqlengine.connectors.flink_format import format_row, format_value
from tests.sqlengine.streams import read, table


@pytest.mark.parametrize(
    "value,dtype,text",
    [
        (None, T.IntegerType(), "null"),
        (True, T.BooleanType(), "true"),
        (1.0, T.DoubleType(), "1.0"),
        (1e7, T.DoubleType(), "1.0E7"),
        (123.25, T.DoubleType(), "123.25"),
        (0.0001234, T.DoubleType(), "1.234E-4"),
        (0.10000000149011612, T.FloatType(), "0.1"),
        (float("nan"), T.DoubleType(), "NaN"),
        (Decimal("12.50"), T.DecimalType(4, 2), "12.50"),
        (dt.datetime(2024, 1, 2, 3, 4), T.TimestampNTZType(), "2024-01-02T03:04"),
        (dt.datetime(2024, 1, 2, 3, 4, 5, 123000), T.TimestampNTZType(), "2024-01-02T03:04:05.123"),
        (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC), T.TimestampType(), "2024-01-02T03:04:05Z"),
        (dt.date(2024, 2, 29), T.DateType(), "2024-02-29"),
        (dt.time(12, 0), T.TimeType(0), "12:00"),
        (dt.timedelta(days=1, hours=2, seconds=4.5), T.DayTimeIntervalType(0, 3), "PT26H4.5S"),
        (b"\x01\xff", T.BinaryType(), "[1, -1]"),
        ([1, None], T.ArrayType(T.IntegerType()), "[1, null]"),
        ({"a": 1}, T.MapType(T.StringType(), T.IntegerType()), "{a=1}"),
    ],
)
def test_values_print_like_flink(value, dtype, text):
    assert format_value(value, dtype) == text


def test_nested_rows_print_as_rows():
    schema = T.StructType([T.StructField("id", T.IntegerType()),
                           T.StructField("r", T.StructType([T.StructField("s", T.StringType())]))])
    assert format_row((1, ("x",)), schema, "+U") == "+U[1, +I[x]]"


def print_table(**options):
    return TableDef("out", (Column("k", "STRING"), Column("n", "BIGINT")),
                    options={"connector": "print", **options})


def sink(df, tdef, mode="append", key=(), streaming=True, job=None):
    return get_connector("print").sink(df, SinkRequest(tdef, streaming, mode, key, job))


@pytest.mark.spark
def test_insert_only_stream_prints_plus_i_lines_in_order(spark, tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"k": "a", "n": 1}\n{"k": "b", "n": 2}\n{"k": "c"}\n')
    df = read(spark, table("src", [("k", "STRING"), ("n", "BIGINT")], connector="filesystem",
                           path=str(src), format="json"), tmp_path / "job").df
    writer = sink(df, print_table(**{"print-identifier": "sink"}))
    writer.trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "ck")).start().awaitTermination()
    assert capsys.readouterr().out.splitlines() == ["sink> +I[a, 1]", "sink> +I[b, 2]", "sink> +I[c, null]"]


@pytest.mark.spark
def test_upsert_stream_prints_plus_u_for_keys_seen_before(spark, tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "1.json").write_text('{"k": "a"}\n{"k": "b"}\n')
    (src / "2.json").write_text('{"k": "a"}\n')
    df = read(spark, table("src", [("k", "STRING")], connector="filesystem", path=str(src),
                           format="json", **{"source.max-files-per-trigger": "1"}), tmp_path / "job").df
    counts = df.groupBy("k").count().withColumnRenamed("count", "n")
    writer = sink(counts, print_table(**{"standard-error": "true"}), mode="update", key=("k",))
    writer.trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "ck")).start().awaitTermination()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert sorted(captured.err.splitlines()[:2]) == ["+I[a, 1]", "+I[b, 1]"]
    assert captured.err.splitlines()[2:] == ["-U[a, 1]", "+U[a, 2]"]  # the key's previous row, then its new one


@pytest.mark.spark
def test_a_changelog_prints_each_row_with_its_kind(spark, tmp_path, capsys):
    """Rows of a changelog operator carry their kind (first column): printed as Flink prints
    them, the kind column itself not shown."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text(
        '{"kind": 0, "k": "a", "n": 1}\n{"kind": 1, "k": "a", "n": 1}\n{"kind": 2, "k": "a", "n": 2}\n{"kind": 3, "k": "a", "n": 2}\n'
    )
    rows = read(spark, table("src", [("kind", "INT"), ("k", "STRING"), ("n", "BIGINT")], connector="filesystem",
                             path=str(src), format="json"), tmp_path / "job").df
    df = rows.selectExpr("CAST(kind AS TINYINT) AS `__kind`", "k", "n")
    request = SinkRequest(print_table(), True, "append", (), tmp_path / "job", kind_column="__kind")
    writer = get_connector("print").sink(df, request)
    writer.trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "ck")).start().awaitTermination()
    assert capsys.readouterr().out.splitlines() == ["+I[a, 1]", "-U[a, 1]", "+U[a, 2]", "-D[a, 2]"]


@pytest.mark.spark
def test_batch_print(spark, capsys):
    df = spark.sql("SELECT 'x' AS k, 5L AS n")
    assert sink(df, print_table(), streaming=False) is None
    assert capsys.readouterr().out == "+I[x, 5]\n"


@pytest.mark.spark
def test_blackhole_discards_every_row(spark, tmp_path):
    df = read(spark, table("g", [("x", "INT")], connector="datagen", **{"number-of-rows": "500"}),
              tmp_path / "job").df
    writer = get_connector("blackhole").sink(
        df, SinkRequest(TableDef("bh", (Column("x", "INT"),), options={"connector": "blackhole"}),
                        True, "append", (), tmp_path)
    )
    query = writer.trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "ck")).start()
    query.awaitTermination()
    assert sum(p.numInputRows for p in query.recentProgress) == 500


@pytest.mark.parametrize("name", ["print", "blackhole"])
def test_sinks_cannot_be_read(name, tmp_path):
    tdef = TableDef("s", (Column("x", "INT"),), options={"connector": name})
    with pytest.raises(ConnectorError, match="cannot be read from"):
        read(None, tdef, tmp_path)
