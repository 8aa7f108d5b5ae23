"""The Avro schema of a Kafka key or value, written as Flink's 'avro' format derives it from the
table's columns, so that the bytes are the ones Flink reads and writes (plain Avro binary, no
schema registry, the writer's schema being the reader's): a record of the columns in order; a
nullable column as the union ["null", type] (the union's branch index is part of the encoding);
TINYINT, SMALLINT and INT as int; DECIMAL as bytes with the decimal logical type; DATE as int
(date); TIMESTAMP and TIMESTAMP_LTZ as long timestamp-millis (Flink's default, legacy mapping);
ARRAY, MAP (string keys) and ROW as array, map and nested record."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql.types import DataType, StructType


class AvroTypeError(ValueError):
    pass


def avro_schema(schema: StructType, name: str = "record") -> str:
    return json.dumps(_record(schema, name))


def _record(schema: StructType, name: str) -> dict[str, Any]:
    return {
        "type": "record",
        "name": name,
        "fields": [{"name": f.name, "type": _nullable(_type(f.dataType, f"{name}_{f.name}"), f.nullable)} for f in schema.fields],
    }


def _nullable(t: Any, nullable: bool) -> Any:
    return ["null", t] if nullable else t


def _type(t: DataType, name: str) -> Any:
    from pyspark.sql import types as T

    simple = {
        T.BooleanType: "boolean", T.ByteType: "int", T.ShortType: "int", T.IntegerType: "int", T.LongType: "long",
        T.FloatType: "float", T.DoubleType: "double", T.StringType: "string", T.BinaryType: "bytes",
    }
    for cls, avro in simple.items():
        if isinstance(t, cls):
            return avro
    if isinstance(t, T.DecimalType):
        return {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale}
    if isinstance(t, T.DateType):
        return {"type": "int", "logicalType": "date"}
    if isinstance(t, (T.TimestampType, T.TimestampNTZType)):
        return {"type": "long", "logicalType": "timestamp-millis"}
    if isinstance(t, T.ArrayType):
        return {"type": "array", "items": _nullable(_type(t.elementType, name), t.containsNull)}
    if isinstance(t, T.MapType) and isinstance(t.keyType, T.StringType):
        return {"type": "map", "values": _nullable(_type(t.valueType, name), t.valueContainsNull)}
    if isinstance(t, T.StructType):
        return _record(t, name)
    raise AvroTypeError(f"{t.simpleString()} has no Avro form here (a MAP needs STRING keys)")


def for_avro(t: StructType) -> StructType:
    """The struct type Spark's Avro functions read and write for ``t``: a TIMESTAMP without zone
    as Spark's TIMESTAMP (the session runs in UTC, so the instant is the wall-clock time)."""
    from pyspark.sql import types as T

    def conv(d: DataType) -> DataType:
        if isinstance(d, T.TimestampNTZType):
            return T.TimestampType()
        if isinstance(d, T.StructType):
            return T.StructType([T.StructField(f.name, conv(f.dataType), f.nullable) for f in d.fields])
        if isinstance(d, T.ArrayType):
            return T.ArrayType(conv(d.elementType), d.containsNull)
        if isinstance(d, T.MapType):
            return T.MapType(d.keyType, conv(d.valueType), d.valueContainsNull)
        return d

    out = conv(t)
    assert isinstance(out, T.StructType)
    return out
