"""The datagen connector: random values or sequences per column. Unbounded at 'rows-per-second';
bounded by 'number-of-rows' or by a sequence field with an end (as in Flink: the source ends when
its shortest sequence does)."""

from __future__ import annotations

import datetime as dt

from catalog.connectors.base import CONNECTOR, ConnectorSpec, Options, Rate
from catalog.model import TableDef
from catalog.option_types import OptionProblem, opt, parse_duration

_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")


class Datagen(ConnectorSpec):
    name = "datagen"
    options = (
        CONNECTOR,
        opt("rows-per-second", "long", "10000", "Rows generated per second (unbounded source)."),
        opt("number-of-rows", "long", None, "Total rows; set, the source is bounded and ends after them."),
        opt("seed", "long", "0", "Random values are a function of (seed, row number, field).", flink_name=False),
        opt("scan.parallelism", "int", None, "Partitions that generate rows (default: cores)."),
        opt("fields.#.kind", "enum", "random", "random values or a sequence from start to end.",
            choices=("random", "sequence")),
        opt("fields.#.min", "double", None, "Smallest random number (default: the type's)."),
        opt("fields.#.max", "double", None, "Largest random number (default: the type's)."),
        opt("fields.#.max-past", "duration", "0", "Random timestamps lie between now minus this and now."),
        opt("fields.#.length", "int", "100", "Length of random strings and bytes; size of arrays, maps, multisets."),
        opt("fields.#.var-len", "boolean", "false", "Random strings of length 1..length."),
        opt("fields.#.start", "string", None, "First value of a sequence (a number, or a timestamp for TIMESTAMP fields)."),
        opt("fields.#.end", "string", None, "Last value of a sequence; the source ends after it (bounded)."),
        opt("fields.#.step", "duration", "1 s", "Step of a TIMESTAMP sequence.", flink_name=False),
        opt("fields.#.null-rate", "double", "0", "Fraction of NULL values, 0..1."),
    )
    source = True
    sink = False
    description = "Generated rows (random or sequences), computed inside Spark; bounded with 'number-of-rows'."

    def rows(self, table: TableDef) -> int | None:
        values = self.values(table)
        total = values.integer("number-of-rows")
        for path in _sequence_paths(table):
            limit = _sequence_rows(values, path)
            if limit is not None:
                total = limit if total is None else min(total, limit)
        return total

    def bounded(self, table: TableDef) -> bool:
        return self.rows(table) is not None

    def one_batch(self, table: TableDef) -> bool:
        return self.bounded(table)  # generated rows are all there in the first batch

    def rate(self, table: TableDef) -> Rate | None:
        value = self.values(table).number("rows-per-second")
        if value is None:
            return None
        shown = table.options.get("rows-per-second", "10000")
        return Rate(value, f"datagen 'rows-per-second' = {shown} for `{table.name}`")

    def column_domain(self, table: TableDef, path: str) -> int | None:
        col = table.column(path)
        kind = table.options.get(f"fields.{path}.kind", "random")
        if col is None or kind != "random" or col.type is None:
            return None
        if col.type.upper() == "BOOLEAN":
            return 2
        values = self.values(table)
        lo, hi = values.number(f"fields.{path}.min"), values.number(f"fields.{path}.max")
        if lo is None or hi is None or col.type.upper() not in _INTEGER_TYPES:
            return None
        return max(int(hi) - int(lo) + 1, 1)

    def problems(self, table: TableDef, fmt: str | None) -> list[OptionProblem]:
        out = []
        for col in table.column_names:
            if table.options.get(f"fields.{col}.kind") == "sequence":
                column = table.column(col)
                is_ts = column is not None and "TIMESTAMP" in (column.type or "").upper()
                for end in ("start", "end"):
                    key = f"fields.{col}.{end}"
                    if key not in table.options and not (is_ts and end == "end"):
                        out.append(OptionProblem(key, f"A sequence field needs '{key}'."))
        return out


def _sequence_paths(table: TableDef) -> list[str]:
    prefix, suffix = "fields.", ".kind"
    return [
        key[len(prefix) : -len(suffix)]
        for key, value in table.options.items()
        if key.startswith(prefix) and key.endswith(suffix) and value == "sequence"
    ]


def _sequence_rows(values: Options, path: str) -> int | None:
    """Rows of the sequence of ``path``: end - start + 1 for numbers; for timestamps, the steps
    from start to end (no end: never ends). None when the options do not say."""
    start, end = values.raw(f"fields.{path}.start"), values.raw(f"fields.{path}.end")
    if start is None or end is None or "${" in start + end:
        return None
    try:
        return max(0, int(end.strip()) - int(start.strip()) + 1)
    except ValueError:
        pass
    try:
        first, last = dt.datetime.fromisoformat(start.strip()), dt.datetime.fromisoformat(end.strip())
        step_ms = round(parse_duration(values.raw(f"fields.{path}.step") or "1 s") * 1000)
    except ValueError:
        return None
    span_ms = int((last - first).total_seconds() * 1000)
    return max(0, span_ms // max(step_ms, 1) + 1)
