"""A Spark error while a statement is turned into a job is one positioned line, never Spark's
plan or a trace (sqlengine.engine._spark_refused, sqlengine.errors.named_in). The errors are
Spark's own, raised by a real session, except INTERNAL_ERROR, which no stable query raises: it is
fed in the shape the issue recorded."""

from __future__ import annotations

import pytest

from planner.statements.script import parse_script
from sqlengine.engine import _spark_refused
from sqlengine.errors import from_spark, named_in

QUERY = "INSERT INTO sink_t\nSELECT k, to_timestamp_ltz(v, 3) AS ts, nope + 1 FROM src"


def _stmt(text: str = QUERY):
    return parse_script(text, "job.sql").statements[0]


def test_what_an_error_names_is_found_in_the_statement():
    text = QUERY
    at = named_in("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column ... with name `nope` cannot be resolved.", text)
    assert at is not None and text[at[0] : at[1]] == "nope"
    at = named_in('[INTERNAL_ERROR] Cannot resolve the runtime replaceable expression "to_timestamp_ltz(v, 3)".', text)
    assert at is not None and text[at[0] : at[1]] == "to_timestamp_ltz(v, 3)"  # the whole expression
    # nothing it names is in the statement (a computed column of another statement): None
    assert named_in("[UNRESOLVED_COLUMN] `LOCALTIMESTAMP` cannot be resolved", text) is None


@pytest.mark.spark
@pytest.mark.parametrize(
    ("spark_sql", "condition", "named"),
    [
        ("SELECT nope + 1 FROM range(1)", "UNRESOLVED_COLUMN", "nope"),
        ("SELECT to_timestamp_ltz(id, 3, 4) FROM range(1)", "WRONG_NUM_ARGS", "to_timestamp_ltz"),
        # what it names ("(k = array(1))") is not in the statement: the error is at the statement
        ("SELECT k FROM range(1) AS r(k) WHERE k = array(1)", "DATATYPE_MISMATCH", None),
    ],
)
def test_a_spark_error_is_one_line_at_what_it_names(spark, spark_sql, condition, named):
    with pytest.raises(Exception) as info:
        spark.sql(spark_sql).collect()
    assert from_spark(info.value)
    err = _spark_refused(info.value, _stmt())
    rendered = err.message
    assert condition in rendered and rendered.startswith("Spark cannot run this statement: ")
    assert "\n" not in rendered and "Project" not in rendered and " at org." not in rendered
    where = QUERY.index(named) if named else 0
    assert (err.line, err.column) == (QUERY[:where].count("\n") + 1, where - QUERY.rfind("\n", 0, where))


def test_an_internal_error_in_the_shape_spark_gives_is_one_line():
    class Py4JJavaError(Exception):  # the class py4j raises, by module and name
        pass

    Py4JJavaError.__module__ = "py4j.protocol"
    err = Py4JJavaError(
        "An error occurred while calling o123.start.\n: org.apache.spark.SparkException: [INTERNAL_ERROR] Cannot "
        'resolve the runtime replaceable expression "to_timestamp_ltz(v, 3)". SQLSTATE: XX000\n'
        "\tat org.apache.spark.SparkException$.internalError(SparkException.scala:107)\n"
    )
    refused = _spark_refused(err, _stmt())
    assert refused.message.startswith("Spark cannot run this statement: ") and "INTERNAL_ERROR" in refused.message
    assert "\n" not in refused.message and "SparkException.scala" not in refused.message
    assert (refused.line, refused.column) == (2, QUERY.split("\n")[1].index("to_timestamp_ltz") + 1)


@pytest.mark.spark
def test_a_failure_raised_in_flinks_words_is_those_words_alone(spark):
    """raise_error is how a translated function fails a job as Flink's does (JSON_OBJECTAGG given a
    key twice): the job's error is the message, without Spark's condition and SQLSTATE."""
    from sqlengine.errors import describe

    with pytest.raises(Exception) as info:
        spark.sql("SELECT raise_error('Key ''a'' is already present.') FROM range(1)").collect()
    assert describe(info.value) == "Key 'a' is already present."


def test_a_failure_caused_by_the_stops_interrupt_is_told_from_another(spark):
    """HDFS's client fails a write its thread's interrupt cut short with an IOException that drops
    the interrupt (DFSOutputStream.closeThreads): a query stopped while writing its checkpoint there
    ends that way, and the job takes it for the stop it is (sqlengine.jobs: JobManager._monitor)."""
    from sqlengine.errors import interrupted

    jvm = spark.sparkContext._jvm

    class Failed(Exception):  # the shape of py4j's Py4JJavaError: the Java throwable beside it
        def __init__(self, java):
            self.java_exception = java

    streamer = jvm.java.io.IOException("Failed to shutdown streamer", jvm.java.lang.InterruptedException("sleep interrupted"))
    assert interrupted(Failed(jvm.java.lang.RuntimeException("wrapped", streamer)))
    assert interrupted(Failed(jvm.java.nio.channels.ClosedByInterruptException()))
    # as Hadoop throws it, with no cause: CI saw a stopped job on HDFS end this way
    assert interrupted(Failed(jvm.java.lang.RuntimeException("wrapped", jvm.java.io.IOException("Failed to shutdown streamer"))))
    # ... and as StreamingQuery.exception() hands it over: the query's exception with its cause only
    from pyspark.errors.exceptions.captured import StreamingQueryException

    stopped = StreamingQueryException("Failed to shutdown streamer", "", jvm.java.io.IOException("Failed to shutdown streamer"))
    assert interrupted(stopped)
    assert not interrupted(StreamingQueryException("disk full", "", jvm.java.io.IOException("disk full")))
    assert not interrupted(Failed(jvm.java.io.IOException("Failed to flush")))
    assert not interrupted(Failed(jvm.java.io.IOException("Failed to shutdown streamer", jvm.java.io.IOException("disk full"))))
    assert not interrupted(ValueError("not from the JVM"))
