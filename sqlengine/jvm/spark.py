"""The JVM operators wired into a DataFrame through py4j: the jar added to the session (ADD JAR:
the driver's class loader and the executors'), then the operator's static ``apply`` called on
the input's JVM Dataset."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlengine import jvm

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

    from sqlengine.changelog.aggregate import AggCallSpec, GroupAggregate
    from sqlengine.changelog.dedup import Deduplicate
    from sqlengine.changelog.join import Join
    from sqlengine.changelog.topn import TopN
    from sqlengine.changelog.window_aggregate import WindowAggregate


def _load(spark: SparkSession) -> Any:
    """The package of the operators' classes, their jar added to the session (again: a no-op)."""
    path = str(jvm.jar())
    spark.sql("ADD JAR '" + path.replace("\\", "\\\\").replace("'", "\\'") + "'")
    return spark._jvm.sqlengine.jvm  # type: ignore[union-attr]


def _array(spark: SparkSession, java_type: str, values: Sequence[Any]) -> Any:
    gateway = spark.sparkContext._gateway
    assert gateway is not None
    out = gateway.new_array(getattr(gateway.jvm, java_type), len(values))
    for i, v in enumerate(values):
        out[i] = v
    return out


def top_n(spark: SparkSession, payload: DataFrame, op: TopN, out: StructType, timeouts: bool) -> DataFrame:
    """``TopN.java`` over ``payload`` (the kind, then the fields), set up as the Python operator
    ``op`` is: its changes, the kind first, as ``out``; ``timeouts``: Spark's processing-time
    timeouts release the partitions the TTL expires (else each is released when next touched)."""
    from pyspark.sql import DataFrame

    ops = _load(spark)
    jdf = ops.TopN.apply(
        payload._jdf, _array(spark, "int", list(op.partition)), _array(spark, "int", [i for i, _ in op.order]),
        _array(spark, "boolean", [d for _, d in op.order]), op.n, op.function,
        -1 if op.rank_position is None else op.rank_position, op.ttl_ms or 0, timeouts, op.strategy,
        _array(spark, "int", list(op.row_key)), out.json(),
    )
    return DataFrame(jdf, spark)


def deduplicate(spark: SparkSession, payload: DataFrame, op: Deduplicate, out: StructType, timeouts: bool) -> DataFrame:
    """``Dedup.java`` over ``payload`` (the kind, then the fields), set up as the Python operator
    ``op`` is: its changes, the kind first, as ``out``; ``timeouts``: Spark's processing-time
    timeouts release the keys the TTL expires (else each is released when next touched)."""
    from pyspark.sql import DataFrame

    ops = _load(spark)
    jdf = ops.Dedup.apply(
        payload._jdf, _array(spark, "int", list(op.keys)), op.order, op.keep_last, op.on_proctime,
        -1 if op.rank_position is None else op.rank_position, op.ttl_ms or 0, timeouts, op.every_change, out.json(),
    )
    return DataFrame(jdf, spark)


JOIN_KINDS = ("INNER", "LEFT", "RIGHT", "FULL", "SEMI", "ANTI")  # Join.java's numbering


def join(spark: SparkSession, payload: DataFrame, op: Join, keys: int, out: StructType, timeouts: bool,
         residual: str | None = None, names: Sequence[str] = ()) -> DataFrame:
    """``Join.java`` over ``payload`` (the kind, the side, ``keys`` key columns, the left fields,
    then the right ones), set up as the Python operator ``op`` is (its TTLs too): its changes, the
    kind first, as ``out``. ``timeouts``: Spark's processing-time timeouts release the rows a TTL
    expires (else a key's are released when it is next touched). ``residual``: Spark SQL over a
    pair of rows whose fields are ``names`` (the left's, then the right's), which a candidate pair
    must meet to match."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructField, StructType

    ops = _load(spark)
    expr = attributes = pair_json = None
    if residual is not None:
        # Spark's analyzer resolves the condition over the pair's fields (the payload's, under
        # their names: nothing runs, and no other session becomes the active one, as with
        # createDataFrame); Join.java binds and evaluates it (its codegen'd predicate) per pair
        fields = payload.schema.fields[2 + keys :]
        pair = StructType([StructField(n, f.dataType, True) for n, f in zip(names, fields, strict=True)])
        named = payload.select(*[F.col(f.name).alias(n) for n, f in zip(names, fields, strict=True)])
        plan = named.select(F.expr(residual).alias("c"))._jdf.queryExecution().analyzed()
        expr, attributes, pair_json = plan.projectList().apply(0).child(), plan.child().output(), pair.json()
    ttls = [t or 0 for t in op.ttls]
    jdf = ops.Join.apply(payload._jdf, JOIN_KINDS.index(op.kind), keys, op.widths[0], *op.counted, *ttls, timeouts,
                         out.json(), expr, attributes, pair_json)
    return DataFrame(jdf, spark)


def _func(call: AggCallSpec) -> str:
    """A call's function as Calls.java names it (the spec is DISTINCT only where that changes the
    result: COUNT, SUM, AVG, and collections, which stay in Python)."""
    if call.star:
        return "COUNT_STAR"
    return f"{call.func}_DISTINCT" if call.distinct else call.func


def _calls(spark: SparkSession, calls: Sequence[AggCallSpec]) -> list[Any]:
    """The calls as Calls.java takes them: functions, argument counts, filters, typings,
    precisions and scales."""
    return [
        _array(spark, "String", [_func(c) for c in calls]),
        _array(spark, "int", [c.args for c in calls]), _array(spark, "boolean", [c.filtered for c in calls]),
        _array(spark, "String", [c.typing.kind for c in calls]), _array(spark, "int", [c.typing.precision for c in calls]),
        _array(spark, "int", [c.typing.scale for c in calls]),
    ]


def group_aggregate(spark: SparkSession, payload: DataFrame, op: GroupAggregate, out: StructType, timeouts: bool) -> DataFrame:
    """``GroupAgg.java`` over ``payload`` (the kind, the keys, then per call its arguments and
    filter), set up as the Python operator ``op`` is (its TTL too): its changes, the kind first, as
    ``out``; ``timeouts``: Spark's processing-time timeouts release the groups the TTL expires
    (else each is released when next touched)."""
    from pyspark.sql import DataFrame

    ops = _load(spark)
    jdf = ops.GroupAgg.apply(payload._jdf, op.n_keys, *_calls(spark, op.calls), op.retracting, op.ttl_ms or 0, timeouts,
                             out.json())
    return DataFrame(jdf, spark)


def window_aggregate(spark: SparkSession, payload: DataFrame, op: WindowAggregate, out: StructType, zone_offset_ms: int,
                     timeouts: bool) -> DataFrame:
    """``WindowAgg.java`` over ``payload`` (the kind, the keys, the window's bounds or the row's
    time, then per call its arguments and filter), set up as the processing-time Python operator
    ``op`` is: its rows as ``out`` (the kind, the keys, the window's start, end and time as
    milliseconds, the calls); ``zone_offset_ms``: the fixed offset of the zone whose wall times
    the bounds are; ``timeouts``: windows close on Spark's processing-time timeouts (unbounded)."""
    from pyspark.sql import DataFrame

    ops = _load(spark)
    jdf = ops.WindowAgg.apply(
        payload._jdf, op.n_keys, op.kind, op.size_ms, op.slide_ms, op.offset_ms, op.given, zone_offset_ms, timeouts,
        *_calls(spark, op.calls), out.json(),
    )
    return DataFrame(jdf, spark)


def numbered(spark: SparkSession, df: DataFrame, name: str) -> DataFrame:
    """``df`` with one more column, last, called ``name``: each row's arrival number, its Spark
    partition then its place there (``Arrival.java``)."""
    from pyspark.sql import DataFrame

    return DataFrame(_load(spark).Arrival.numbered(df._jdf), spark).toDF(*df.columns, name)
