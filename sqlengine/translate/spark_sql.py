"""The Spark SQL text the translation writes: sqlglot's Spark dialect, but for Spark 4's TIME.
sqlglot writes a TIME as TIMESTAMP (Spark had no TIME before 4.1), so `CAST(ts AS TIME(0))`
became a timestamp that compared unequal to `TIME '13:45:30'` and was written with its date;
sqlengine's sessions enable Spark's TIME (spark.sql.timeType.enabled)."""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.generators.spark import SparkGenerator


class Spark4Generator(SparkGenerator):
    def datatype_sql(self, expression: exp.DataType) -> str:
        if expression.is_type(exp.DType.TIME):  # Flink's TIME is TIME(0); Spark's TIME(6)
            size = expression.find(exp.DataTypeParam)
            return f"TIME({min(int(size.name), 6) if size is not None else 0})"
        return super().datatype_sql(expression)


class Spark4(Spark):
    Generator = Spark4Generator


def spark_sql(node: exp.Expr) -> str:
    """``node`` as Spark SQL, every identifier backquoted."""
    return node.sql(dialect=Spark4, identify=True)
