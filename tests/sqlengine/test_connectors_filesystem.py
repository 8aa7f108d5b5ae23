import datetime as dt
import json

import pytest

from sqlengine.connectors import ConnectorError, SinkRequest, get_connector
from sqlengine.errors import describe
from tests.sqlengine.streams import observed, read, run_to_end, table

pytestmark = pytest.mark.spark

GOOD_AND_BAD_JSON = (
    '{"id": 1, "name": "a", "ts": "2024-01-02 03:04:05.123"}\n'
    '{"id": "not a number", "name": "b"}\n'
    "this is not json\n"
    '{"id": 3, "name": "c", "ts": "2024-01-02T03:04:06"}\n'
)
COLUMNS = [("id", "INT"), ("name", "STRING"), ("ts", "TIMESTAMP(3)")]


@pytest.fixture
def json_dir(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "part-1.json").write_text(GOOD_AND_BAD_JSON)
    return src


def fs_table(path, fmt="json", columns=COLUMNS, **options):
    return table("events", columns, connector="filesystem", path=str(path), format=fmt, **options)


def test_bounded_read_uses_the_declared_schema(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"id": 1, "name": "a", "extra": true}\n{"id": 2}\n')
    result = read(spark, fs_table(src), tmp_path / "job")
    assert result.bounded is True
    assert result.df.isStreaming
    assert result.df.columns == ["id", "name", "ts"]
    assert [f.dataType.typeName() for f in result.df.schema.fields] == ["integer", "string", "timestamp_ntz"]
    rows, query = run_to_end(spark, result.df, tmp_path / "ck")
    assert sorted((r.id, r.name) for r in rows) == [(1, "a"), (2, None)]
    assert not query.isActive


def test_a_single_file_path(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "wanted [1].json").write_text('{"id": 7}\n')
    (src / "other.json").write_text('{"id": 8}\n')
    result = read(spark, fs_table(src / "wanted [1].json"), tmp_path / "job")
    rows, _ = run_to_end(spark, result.df, tmp_path / "ck")
    assert [r.id for r in rows] == [7]
    batch = read(spark, fs_table(src / "wanted [1].json"), tmp_path / "job", streaming=False)
    assert [r.id for r in batch.df.collect()] == [7]


@pytest.mark.parametrize("streaming", [True, False])
def test_a_single_file_beside_partitioned_and_plain_directories_is_read_alone(spark, tmp_path, streaming):
    """Only the file is looked up: not a partitioned table's directories beside it (Spark inferred
    partitions from them and refused 'Conflicting directory structures'), nor a file of the same
    name in a subdirectory, nor a neighbour whose name has a colon (which Hadoop's pattern matching
    cannot parse). Names with pattern characters and without. A name of letters and digits is read
    as before: its directory filtered to its name (no partitioned directory beside it here, which
    would fail as before)."""
    for n, name in enumerate(("events.json", "a,b {x}.json", "data")):
        src = tmp_path / f"in{n}"
        (src / "more").mkdir(parents=True)
        (src / "more" / name).write_text('{"id": 91}\n')
        (src / name).write_text('{"id": 7}\n{"id": 8}\n')
        (src / "other.json").write_text('{"id": 92}\n')
        if n < 2:
            (src / "out" / "day=1").mkdir(parents=True)
            (src / "out" / "day=1" / "part-0.json").write_text('{"id": 90}\n')
            (src / "b:c.json").write_text('{"id": 93}\n')
        result = read(spark, fs_table(src / name), tmp_path / f"job{n}", streaming=streaming)
        rows = run_to_end(spark, result.df, tmp_path / f"ck{n}")[0] if streaming else result.df.collect()
        assert sorted(r.id for r in rows) == [7, 8], name


def test_a_file_whose_name_has_a_colon_is_refused_before_spark_reads_it(spark, tmp_path):
    """Spark's reader fails on such a name whichever way it is given (Hadoop's Path parses 't10:'
    as a URI scheme): the table's path option says so instead."""
    (tmp_path / "t10:00.json").write_text('{"id": 7}\n')
    with pytest.raises(ConnectorError) as info:
        read(spark, fs_table(tmp_path / "t10:00.json"), tmp_path / "job")
    assert "Spark cannot read a file whose name has a colon ('t10:00.json'); rename it." in describe(info.value)


def test_missing_path_is_a_connector_error(spark, tmp_path):
    with pytest.raises(ConnectorError) as info:
        read(spark, fs_table(tmp_path / "nowhere"), tmp_path / "job")
    assert "`events`" in str(info.value) and "'path'" in str(info.value)
    assert info.value.option == "path"


def test_bad_options_are_reported_before_spark(spark, tmp_path):
    with pytest.raises(ConnectorError, match=r"Table `events`: Unknown option 'pth'.*Did you mean 'path'"):
        read(spark, fs_table(tmp_path, pth="x"), tmp_path / "job")


def test_monitored_directory_is_unbounded_and_picks_up_new_files(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "1.json").write_text('{"id": 1}\n')
    result = read(spark, fs_table(src, **{"source.monitor-interval": "1 s"}), tmp_path / "job")
    assert result.bounded is False
    query = (
        result.df.writeStream.format("memory").queryName("monitored")
        .option("checkpointLocation", str(tmp_path / "ck")).start()
    )
    try:
        query.processAllAvailable()
        assert [r.id for r in spark.table("monitored").collect()] == [1]
        (src / "2.json").write_text('{"id": 2}\n{"id": 3}\n')
        query.processAllAvailable()
        assert sorted(r.id for r in spark.table("monitored").collect()) == [1, 2, 3]
    finally:
        query.stop()


def test_errors_fail_stops_the_query_with_a_catchable_error(spark, json_dir, tmp_path):
    result = read(spark, fs_table(json_dir), tmp_path / "job")
    assert result.metric_names == ()
    with pytest.raises(Exception) as info:
        run_to_end(spark, result.df, tmp_path / "ck")
    assert "a malformed input record; set 'errors.mode'" in describe(info.value)  # what the user is told


def test_errors_fail_in_batch_mode_is_catchable_too(spark, json_dir, tmp_path):
    result = read(spark, fs_table(json_dir), tmp_path / "job", streaming=False)
    with pytest.raises(Exception) as info:
        result.df.collect()
    assert "a malformed input record; set 'errors.mode'" in describe(info.value)


def test_errors_skip_drops_and_counts_malformed_records(spark, json_dir, tmp_path):
    result = read(spark, fs_table(json_dir, **{"errors.mode": "skip"}), tmp_path / "job")
    rows, query = run_to_end(spark, result.df, tmp_path / "ck")
    assert sorted((r.id, r.name, r.ts) for r in rows) == [
        (1, "a", dt.datetime(2024, 1, 2, 3, 4, 5, 123000)),
        (3, "c", dt.datetime(2024, 1, 2, 3, 4, 6)),
    ]
    [name] = result.metric_names
    assert observed(query, name) == 2


def test_flink_ignore_parse_errors_nulls_what_does_not_convert(spark, json_dir, tmp_path):
    """As Flink 2.3 reads the same lines: a field that does not convert is NULL and its row stays;
    a line that is no JSON object is skipped. Both are counted."""
    result = read(spark, fs_table(json_dir, **{"json.ignore-parse-errors": "true"}), tmp_path / "job")
    rows, query = run_to_end(spark, result.df, tmp_path / "ck")
    assert sorted(((r.id, r.name) for r in rows), key=str) == [(1, "a"), (3, "c"), (None, "b")]
    assert observed(query, result.metric_names[0]) == 2
    batch = read(spark, fs_table(json_dir, **{"errors.mode": "null-fields"}), tmp_path / "job", streaming=False)
    assert sorted(((r.id, r.name) for r in batch.df.collect()), key=str) == [(1, "a"), (3, "c"), (None, "b")]


def test_errors_dead_letter_keeps_bad_records_with_their_file(spark, json_dir, tmp_path):
    job = tmp_path / "job"
    result = read(spark, fs_table(json_dir, **{"errors.mode": "dead-letter"}), job)
    rows, query = run_to_end(spark, result.df, tmp_path / "ck")
    assert sorted(r.id for r in rows) == [1, 3]
    assert observed(query, result.metric_names[0]) == 2
    [side] = result.side_queries
    side_query = side(spark, tmp_path / "side-ck")
    side_query.awaitTermination()  # bounded: the side query ends by itself too
    letters = [
        json.loads(line)
        for f in sorted((job / "dead-letter" / "events").glob("*.json"))
        for line in f.read_text().splitlines()
    ]
    assert sorted(d["record"] for d in letters) == sorted(GOOD_AND_BAD_JSON.splitlines()[1:3])
    assert all(d["file"].endswith("/part-1.json") for d in letters)


def test_dead_letter_in_batch_mode_writes_at_once(spark, json_dir, tmp_path):
    target = tmp_path / "letters"
    result = read(
        spark,
        fs_table(json_dir, **{"errors.mode": "dead-letter", "errors.dead-letter.path": str(target)}),
        tmp_path / "job",
        streaming=False,
    )
    assert sorted(r.id for r in result.df.collect()) == [1, 3]
    records = [json.loads(x)["record"] for f in target.glob("*.json") for x in f.read_text().splitlines()]
    assert len(records) == 2


def test_csv_delimiter_quotes_and_malformed_lines(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.csv").write_text('1;"say ""hi"""\n2\nx;b\n3;c;extra\n4;d\n')
    tdef = fs_table(
        src, "csv", [("id", "INT"), ("s", "STRING")],
        **{"csv.field-delimiter": ";", "csv.ignore-parse-errors": "true"},
    )
    result = read(spark, tdef, tmp_path / "job")
    rows, query = run_to_end(spark, result.df, tmp_path / "ck")
    # Flink 2.3's rows for these lines: a short line's missing field and a field that does not
    # convert are NULL; a line with more fields than the table's is skipped
    assert sorted(((r.id, r.s) for r in rows), key=str) == [(1, 'say "hi"'), (2, None), (4, "d"), (None, "b")]
    assert observed(query, result.metric_names[0]) == 3
    skipped = read(spark, fs_table(src, "csv", [("id", "INT"), ("s", "STRING")],
                                   **{"csv.field-delimiter": ";", "errors.mode": "skip"}), tmp_path / "job2")
    rows, _ = run_to_end(spark, skipped.df, tmp_path / "ck2")
    assert sorted((r.id, r.s) for r in rows) == [(1, 'say "hi"'), (4, "d")]


def test_ignore_parse_errors_counts_the_fields_of_a_partitioned_tables_lines(spark, tmp_path):
    """A partition column is no field of the line: a line of three fields in a table of two data
    columns and one partition column has one too many, and is skipped as Flink skips it."""
    from dataclasses import replace

    src = tmp_path / "in"
    (src / "day=1").mkdir(parents=True)
    (src / "day=1" / "a.csv").write_text("1,a\n2,b,extra\nx,c\n")
    tdef = replace(fs_table(src, "csv", [("id", "INT"), ("s", "STRING"), ("day", "INT")],
                            **{"csv.ignore-parse-errors": "true"}), partitioned_by=("day",))
    rows = read(spark, tdef, tmp_path / "job", streaming=False).df.collect()
    assert sorted(((r.id, r.s, r.day) for r in rows), key=str) == [(1, "a", 1), (None, "c", 1)]


def test_metadata_columns(spark, tmp_path):
    from catalog import Column, TableDef

    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"id": 1}\n')
    tdef = TableDef(
        "events",
        (Column("id", "INT"), Column("fname", "STRING", kind="metadata", metadata_key="file.name"),
         Column("file.size", "BIGINT", kind="metadata")),
        options={"connector": "filesystem", "path": str(src), "format": "json"},
    )
    rows, _ = run_to_end(spark, read(spark, tdef, tmp_path / "job").df, tmp_path / "ck")
    assert [(r.id, r.fname, r["file.size"]) for r in rows] == [(1, "a.json", 10)]


def _sink(tdef, df, mode="append", streaming=True, job=None):
    request = SinkRequest(tdef, streaming, mode, ("k",) if mode == "update" else (), job)
    return get_connector("filesystem").sink(df, request)


def test_streaming_sink_partitions_and_is_exactly_once(spark, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text('{"id": 1, "day": "x"}\n{"id": 2, "day": "y"}\n{"id": 3, "day": "x"}\n')
    columns = [("id", "INT"), ("day", "STRING")]
    source = read(spark, fs_table(src, columns=columns), tmp_path / "job")
    out = tmp_path / "out"
    from catalog import TableDef

    sink_table = TableDef(
        "sink", fs_table(out, columns=columns).columns, partitioned_by=("day",),
        options={"connector": "filesystem", "path": str(out), "format": "json"},
    )
    for _ in range(2):  # the second run resumes from the checkpoint and writes nothing new
        writer = _sink(sink_table, source.df, job=tmp_path / "job")
        writer.trigger(availableNow=True).option("checkpointLocation", str(tmp_path / "ck")).start().awaitTermination()
    assert (out / "_spark_metadata").is_dir()
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["_spark_metadata", "day=x", "day=y"]
    back = spark.read.schema("id INT, day STRING").json(str(out)).collect()
    assert sorted((r.id, r.day) for r in back) == [(1, "x"), (2, "y"), (3, "x")]


def test_an_updating_query_into_a_filesystem_table_is_refused_when_planned(tmp_path):
    """The filesystem sink appends rows only (catalog.connectors: accepts_updates): the checker
    refuses a group aggregation written to it, so lint and EXPLAIN say it before any job."""
    from catalog import Catalog
    from planner.analysis.check import Code
    from planner.statements.script import parse_script
    from planner.statements.session import PlannerSession

    session = PlannerSession(Catalog.in_memory())
    sql = f"""CREATE TABLE src (k STRING, v INT) WITH ('connector' = 'datagen');
              CREATE TABLE out_files (k STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = '{tmp_path}', 'format' = 'json');
              INSERT INTO out_files SELECT k, COUNT(*) FROM src GROUP BY k;"""
    script = parse_script(sql)
    assert not script.errors, script.errors[0].render()
    *_, outcome = [session.execute(s) for s in script.statements]
    (problem,) = outcome.analysis.problems
    assert problem.code == Code.SINK_TAKES_APPENDS
    assert "filesystem connector only appends rows" in problem.reason and "upsert key: k" in problem.reason
    (diagnostic,) = [d for d in outcome.analysis.diagnostics if d.code == "SE301"]
    assert diagnostic.operator == "Sink"


def test_batch_sink_writes_flink_sql_timestamps_and_parquet_round_trip(spark, tmp_path):
    df = spark.sql("SELECT 1 AS id, TIMESTAMP_NTZ'2024-01-02 03:04:05.5' AS ts")
    columns = [("id", "INT"), ("ts", "TIMESTAMP(3)")]
    assert _sink(fs_table(tmp_path / "j", columns=columns), df, streaming=False) is None
    text = "".join(p.read_text() for p in (tmp_path / "j").glob("*.json"))
    assert '"ts":"2024-01-02 03:04:05.500000"' in text
    _sink(fs_table(tmp_path / "p", "parquet", columns), df, streaming=False)
    back = read(spark, fs_table(tmp_path / "p", "parquet", columns), tmp_path / "job", streaming=False)
    assert [tuple(r) for r in back.df.collect()] == [(1, dt.datetime(2024, 1, 2, 3, 4, 5, 500000))]


def test_parquet_cannot_dead_letter(spark, tmp_path):
    (tmp_path / "p").mkdir()
    with pytest.raises(ConnectorError, match=r"errors\.mode"):
        read(spark, fs_table(tmp_path / "p", "parquet", **{"errors.mode": "dead-letter"}), tmp_path / "job")


def test_other_errors_are_not_taken_for_malformed_records(spark, tmp_path):
    with pytest.raises(Exception) as info:
        spark.sql("SELECT no_such_column").collect()
    assert "malformed" not in describe(info.value)
    assert describe(ValueError("bad value")) == "bad value"
