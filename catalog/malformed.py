"""What a source does with a record it cannot parse, read from the table's options once: for the
connectors that read it (sqlengine.connectors.malformed) and for the planner, which keeps a job
that skips records streaming (planner.analysis.one_batch: the streaming progress counts them)."""

from __future__ import annotations

from collections.abc import Mapping

from catalog.option_types import parse_bool
from catalog.options import table_format

# 'null-fields' is Flink's 'ignore-parse-errors': a field that does not convert reads as NULL and its
# row is kept; a record that does not parse as one (not a JSON object, a CSV line with too many
# fields) is skipped. 'skip' drops any record with an error.
MODES = ("fail", "skip", "dead-letter", "null-fields")


def errors_mode(options: Mapping[str, str]) -> str:
    """'errors.mode' when written (as written: the connector refuses a value not in MODES); else
    'null-fields', Flink's meaning, when a format's 'ignore-parse-errors' is true (the table's,
    or a Kafka table's key or value format's: ``side_errors_mode``); else 'fail'."""
    if "errors.mode" in options:
        return options["errors.mode"] or "fail"
    modes = {side_errors_mode(options, side) for side in ("key", "value")}
    return "null-fields" if "null-fields" in modes else "fail"


def side_errors_mode(options: Mapping[str, str], side: str) -> str:
    """What one side ('key' or 'value') of a record does when it does not parse: 'errors.mode'
    when written; else 'null-fields' when its format's 'ignore-parse-errors' is true, as Flink
    reads each format's own flag ('key.json.*', 'value.json.*', or 'json.*' with 'format': the
    value's); else 'fail'."""
    if "errors.mode" in options:
        return options["errors.mode"] or "fail"
    fmt = options.get("key.format") if side == "key" else table_format(options)
    prefixes = ("key.",) if side == "key" else ("", "value.")
    if fmt in ("json", "csv") and any(_true(options.get(f"{p}{fmt}.ignore-parse-errors")) for p in prefixes):
        return "null-fields"
    return "fail"


def skips_malformed(options: Mapping[str, str]) -> bool:
    return errors_mode(options) in ("skip", "dead-letter", "null-fields")


def _true(value: str | None) -> bool:
    try:
        return value is not None and parse_bool(value)
    except ValueError:  # the option check reports it
        return False
