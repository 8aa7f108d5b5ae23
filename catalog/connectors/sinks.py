"""Sink-only connectors: print (rows as Flink prints them) and blackhole (discards rows)."""

from __future__ import annotations

from catalog.connectors.base import CONNECTOR, ConnectorSpec
from catalog.option_types import opt


class Print(ConnectorSpec):
    name = "print"
    options = (
        CONNECTOR,
        opt("print-identifier", "string", None, "A prefix before each printed row."),
        opt("standard-error", "boolean", "false", "Print to standard error instead of output."),
        opt("sink.parallelism", "int", None, "Rows are printed by the driver.", ignored=True),
    )
    source = False
    sink = True
    description = "Prints each row as +I[...] (+U for updates) to standard output."
    accepts_updates = True


class Blackhole(ConnectorSpec):
    name = "blackhole"
    options = (CONNECTOR,)
    source = False
    sink = True
    description = "Discards every row (for benchmarks)."
    accepts_updates = True
    discards_rows = True
