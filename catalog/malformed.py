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
    'null-fields', Flink's meaning, when the format's 'ignore-parse-errors' is true ('json.*',
    or with Kafka's 'value.format' Flink's 'value.json.*' too); else 'fail'."""
    if "errors.mode" in options:
        return options["errors.mode"] or "fail"
    fmt = table_format(options)
    if fmt in ("json", "csv") and any(_true(options.get(f"{side}{fmt}.ignore-parse-errors")) for side in ("", "value.")):
        return "null-fields"
    return "fail"


def skips_malformed(options: Mapping[str, str]) -> bool:
    return errors_mode(options) in ("skip", "dead-letter", "null-fields")


def _true(value: str | None) -> bool:
    try:
        return value is not None and parse_bool(value)
    except ValueError:  # the option check reports it
        return False
