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


def top_n(
    spark: SparkSession, payload: DataFrame, keys: Sequence[int], order: Sequence[tuple[int, bool]], n: int,
    function: str, rank_position: int | None, ttl_ms: int | None, out: StructType,
) -> DataFrame:
    """``TopN.java`` over ``payload`` (the kind, then the fields; ``keys`` and ``order`` are
    positions among the fields): its changes, the kind first, as ``out``."""
    from pyspark.sql import DataFrame

    ops = _load(spark)
    jdf = ops.TopN.apply(
        payload._jdf, _array(spark, "int", list(keys)), _array(spark, "int", [i for i, _ in order]),
        _array(spark, "boolean", [d for _, d in order]), n, function, -1 if rank_position is None else rank_position,
        ttl_ms or 0, out.json(),
    )
    return DataFrame(jdf, spark)
