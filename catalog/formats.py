"""The formats' own WITH options ('json.*', 'csv.*', 'raw.*', 'parquet.*'), allowed on a table
whose 'format' is that format (and on Kafka tables as 'key.<format>.*', 'value.<format>.*')."""

from __future__ import annotations

from catalog.option_types import OptionSpec, opt

FORMATS: dict[str, tuple[OptionSpec, ...]] = {
    "json": (
        opt("json.ignore-parse-errors", "boolean", "false",
            "As in Flink: a field that does not convert reads as NULL, a record that does not "
            "parse is skipped (same as 'errors.mode' = 'null-fields')."),
        opt("json.fail-on-missing-field", "boolean", "false",
            "Only 'false' is supported: a missing field reads as NULL."),
        opt("json.timestamp-format.standard", "enum", "SQL",
            "How TIMESTAMP values are written: SQL ('2024-01-01 12:00:00.123') or ISO-8601 "
            "('2024-01-01T12:00:00.123'). Reading accepts both.", choices=("SQL", "ISO-8601")),
    ),
    "csv": (
        opt("csv.field-delimiter", "string", ",", "The field separator (one character, or '\\t')."),
        opt("csv.ignore-parse-errors", "boolean", "false",
            "As in Flink: a field that does not convert reads as NULL, a record that does not "
            "parse is skipped (same as 'errors.mode' = 'null-fields')."),
        opt("csv.quote-character", "string", '"', "The quote character around fields."),
        opt("csv.disable-quote-character", "boolean", "false", "Fields are never quoted."),
        opt("csv.allow-comments", "boolean", "false", "Lines starting with '#' are skipped."),
        opt("csv.escape-character", "string", None, "The escape character inside quoted fields."),
        opt("csv.null-literal", "string", None, "A field equal to this string reads as NULL."),
    ),
    "raw": (
        opt("raw.charset", "string", "UTF-8", "The charset of a STRING column's bytes."),
        opt("raw.endianness", "enum", "big-endian", "Byte order of numeric columns; only STRING "
            "and BYTES columns are supported here.", choices=("big-endian", "little-endian")),
    ),
    "parquet": (
        opt("parquet.compression", "enum", "snappy", "Compression of written files.",
            choices=("none", "uncompressed", "snappy", "gzip", "lz4", "zstd")),
    ),
}
