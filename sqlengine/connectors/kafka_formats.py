"""A Kafka key or value as columns and back: json, csv, raw and avro (Flink's plain Avro binary,
``sqlengine.connectors.avro_schema``), with their options.

Decoding returns a struct column of the declared fields (NULL for a null key or value, a
tombstone). A record that does not parse fails the job ('errors.mode' = 'fail') or is marked in
the malformed-record column (``skip``: counted, then dropped), as the filesystem source does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from catalog import TableDef
from sqlengine.connectors.filesystem import csv_options, write_options
from sqlengine.connectors.malformed import CORRUPT_COLUMN
from sqlengine.connectors.options import TableOptions

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql.types import StructType


def side_options(table: TableDef, side: str, fmt: str) -> TableOptions:
    """The options of the key or value format, without their prefix ('value.json.x' ->
    'json.x'), as TableOptions whose format is ``fmt``."""
    opts = {k: v for k, v in table.options.items() if k.split(".")[0] not in ("key", "value", "format")}
    prefix = f"{side}."
    opts.update({k[len(prefix):]: v for k, v in table.options.items() if k.startswith(prefix + fmt + ".")})
    opts["format"] = fmt
    return TableOptions(table.with_options(opts))


def ddl(schema: StructType) -> str:
    return ", ".join(f"`{f.name}` {f.dataType.simpleString()}" for f in schema.fields)


def decode(raw: Column, fmt: str, schema: StructType, opts: TableOptions, mode: str) -> Column:
    """The bytes ``raw`` as a struct of ``schema`` (plus the malformed-record column when
    ``mode`` is not 'fail')."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    if fmt == "raw":
        field = schema.fields[0]
        if isinstance(field.dataType, BinaryType):
            value = raw
        elif isinstance(field.dataType, StringType):
            value = F.decode(raw, opts.string("raw.charset") or "UTF-8")
        else:
            raise opts.error(f"the 'raw' format reads STRING or BYTES columns, not `{field.name}` "
                             f"{field.dataType.simpleString()}.", "format")
        return F.when(raw.isNull(), F.lit(None)).otherwise(F.struct(value.alias(field.name)))
    if fmt == "avro":
        return _decode_avro(raw, schema, opts, mode)
    text = raw.cast("string")
    parse_opts: dict[str, str] = {}
    target = schema
    if mode == "fail":
        parse_opts["mode"] = "FAILFAST"
    else:
        target = StructType([*schema.fields, StructField(CORRUPT_COLUMN, StringType())])  # add() mutates
        parse_opts.update(mode="PERMISSIVE", columnNameOfCorruptRecord=CORRUPT_COLUMN)
    if fmt == "json":
        parsed = F.from_json(text, target, parse_opts)
    else:
        parse_opts.update({k: v for k, v in csv_options(opts).items() if k != "header"})
        parsed = F.from_csv(text, F.lit(ddl(target)), parse_opts)
    return F.when(raw.isNull(), F.lit(None)).otherwise(parsed)


def encode(columns: list[Column], names: list[str], fmt: str, opts: TableOptions, schema: StructType | None = None) -> Column:
    """The columns as the bytes of one key or value (``schema``: their declared types, named as
    ``names``; the 'avro' format needs it)."""
    from pyspark.sql import functions as F

    if fmt == "raw":
        return columns[0].cast("binary") if names else F.lit(None)
    struct = F.struct(*[c.alias(n) for c, n in zip(columns, names, strict=True)])
    if fmt == "avro":
        return _encode_avro(struct, schema, opts)
    options = write_options(opts)
    if fmt == "json":
        # Flink writes a NULL field as null; Spark leaves it out unless told
        return F.to_json(struct, {**options, "ignoreNullFields": "false"}).cast("binary")
    return F.to_csv(struct, {k: v for k, v in options.items() if k != "header"}).cast("binary")


def uses_avro(table: TableDef) -> bool:
    """Whether the table's key or value is in the 'avro' format (Spark's Avro module needed)."""
    o = table.options
    return "avro" in (o.get("format"), o.get("key.format"), o.get("value.format"))


def _avro_schema(schema: StructType, opts: TableOptions) -> str:
    from sqlengine.connectors.avro_schema import AvroTypeError, avro_schema

    try:
        return avro_schema(schema)
    except AvroTypeError as err:
        raise opts.error(f"the 'avro' format: {err}.", "format") from None


def _decode_avro(raw: Column, schema: StructType, opts: TableOptions, mode: str) -> Column:
    """Spark's from_avro with the schema Flink writes; a record that does not decode fails the job
    or (skip) is marked with its bytes in base64."""
    from pyspark.sql import functions as F

    mode_opt = F.create_map(F.lit("mode"), F.lit("FAILFAST" if mode == "fail" else "PERMISSIVE"))
    parsed = F.call_function("from_avro", raw, F.lit(_avro_schema(schema, opts)), mode_opt)
    typed = parsed.cast(schema)  # Spark reads timestamp-millis as its TIMESTAMP: the table's types
    fields = [typed[f.name].alias(f.name) for f in schema.fields]
    if mode != "fail":
        fields.append(F.when(parsed.isNull(), F.base64(raw)).alias(CORRUPT_COLUMN))
    return F.when(raw.isNull(), F.lit(None)).otherwise(F.struct(*fields))


def _encode_avro(struct: Column, schema: StructType | None, opts: TableOptions) -> Column:
    from pyspark.sql import functions as F

    from sqlengine.connectors.avro_schema import for_avro

    assert schema is not None, "an Avro key or value is written with the table's types"
    # field by field: a struct cast cannot make a field NOT NULL, and the writer's schema (a NOT
    # NULL column without the null branch) is the table's, not the data's nullability
    fields = [struct[f.name].cast(t.dataType).alias(f.name) for f, t in zip(schema.fields, for_avro(schema).fields, strict=True)]
    return F.call_function("to_avro", F.struct(*fields), F.lit(_avro_schema(schema, opts)))
