"""What each connector accepts in ``WITH (...)``, and the validation of a table's options.

Used by lint, by the shell's completer (keys inside WITH) and when a job starts. Option names are
Flink's wherever Flink has the option (``flink_name``); ours are few and say so. A key may hold
``#`` for a field name (``fields.#.kind``), or end in ``.*`` for any key under a prefix
(``properties.*``). Keys under ``stats.`` are planner estimates and are
allowed on every table; format options (``json.*``, ``csv.*``) are allowed for their format.
The options themselves are declared by each connector's spec (``catalog.connectors``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from catalog.connectors import CONNECTOR, CONNECTORS, ConnectorSpec
from catalog.formats import FORMATS
from catalog.legacy_options import connector_refusal, refusal
from catalog.model import TableDef
from catalog.option_types import (
    OptionProblem,
    OptionSpec,
    OptionType,
    check_value,
    parse_bool,
    parse_duration,
    parse_memory,
)

STATS_PREFIX = "stats."

__all__ = [
    "CONNECTORS",
    "FORMATS",
    "STATS_PREFIX",
    "ConnectorSpec",
    "OptionProblem",
    "OptionSpec",
    "OptionType",
    "check_value",
    "find_spec",
    "option_keys",
    "parse_bool",
    "parse_duration",
    "parse_memory",
    "table_format",
    "validate_options",
]


def _pattern(key: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(key).replace("\\#", "(.+)") + "$")


def table_format(options: Mapping[str, str]) -> str | None:
    return options.get("format") or options.get("value.format")


def _candidates(connector: str, fmt: str | None) -> list[OptionSpec]:
    spec = CONNECTORS.get(connector)
    out = list(spec.options) if spec else [CONNECTOR]
    if fmt in FORMATS:
        out += FORMATS[fmt]
    if spec is not None and spec.prefixed_formats:
        from catalog.connectors.kafka import prefixed

        for name in spec.formats:
            out += [*prefixed(FORMATS.get(name, ()), "key"), *prefixed(FORMATS.get(name, ()), "value")]
    return out


def find_spec(connector: str, key: str, fmt: str | None = None) -> tuple[OptionSpec, str | None] | None:
    """The spec of ``key`` and the field name a ``#`` matched, or None if unknown."""
    for option in _candidates(connector, fmt):
        if option.key.endswith(".*"):  # any key under a prefix ('properties.*')
            if key.startswith(option.key[:-1]) and len(key) > len(option.key) - 1:
                return option, None
        elif "#" not in option.key:
            if option.key == key:
                return option, None
        elif m := _pattern(option.key).match(key):
            return option, m.group(1)
    return None


def option_keys(connector: str, fmt: str | None = None, fields: tuple[str, ...] = ()) -> list[str]:
    """Every key a table of ``connector`` accepts, ``#`` expanded over ``fields`` (completion)."""
    keys: list[str] = []
    for option in _candidates(connector, fmt):
        if "#" in option.key:
            keys += [option.key.replace("#", f) for f in fields] or [option.key]
        else:
            keys.append(option.key)
    return keys


def _did_you_mean(word: str, choices: list[str]) -> str | None:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def validate_options(table: TableDef) -> list[OptionProblem]:
    """Problems with ``table``'s WITH options: unknown keys, missing required, bad values."""
    options = table.options
    name = table.connector
    if not name:
        legacy = connector_refusal(options)
        if legacy is not None:  # a legacy connector other than the filesystem one
            return [OptionProblem("connector.type", legacy, "connector")]
        return [OptionProblem("connector", f"Table `{table.name}` has no 'connector' option.")]
    spec = CONNECTORS.get(name)
    if spec is None:
        hint = _did_you_mean(name, sorted(CONNECTORS))
        tail = f" Did you mean '{hint}'?" if hint else f" Known: {', '.join(sorted(CONNECTORS))}."
        return [OptionProblem("connector", f"Unknown connector '{name}'.{tail}", hint)]
    fmt = options.get("format") if spec.formats else None
    fields = tuple(table.column_names)
    known = option_keys(name, fmt, fields)
    problems: list[OptionProblem] = []
    for key, value in options.items():
        if key.startswith(STATS_PREFIX):
            continue
        found = find_spec(name, key, fmt)
        if found is None:
            problems.append(_unknown(key, name, fmt, known))
            continue
        option, field = found
        if field is not None and field.split(".")[0] not in fields:
            hint = _did_you_mean(field, list(fields))
            problems.append(
                OptionProblem(
                    key,
                    f"Option '{key}' names field `{field}`, which table `{table.name}` lacks."
                    + (f" Did you mean `{hint}`?" if hint else ""),
                    key.replace(field, hint, 1) if hint else None,
                )
            )
            continue
        if "${" in value:  # an unresolved script variable: checked once it is defined
            continue
        why = check_value(option, value)
        if why:
            hint = _did_you_mean(value, list(option.choices)) if option.type == "enum" else None
            problems.append(OptionProblem(key, f"Option '{key}': {why}.", hint))
    for option in (*spec.options, *FORMATS.get(fmt or "", ())):
        if option.required and option.key not in options:
            problems.append(OptionProblem(option.key, f"Table `{table.name}` needs the option '{option.key}'."))
    problems += spec.problems(table, fmt)
    return problems


def _unknown(key: str, connector: str, fmt: str | None, known: list[str]) -> OptionProblem:
    legacy = refusal(key, fmt)
    if legacy is not None:
        return OptionProblem(key, *legacy)
    prefix = key.split(".", 1)[0]
    if prefix in FORMATS and prefix != fmt and "." in key:
        return OptionProblem(key, f"Option '{key}' is for format '{prefix}', but the format is '{fmt}'.")
    hint = _did_you_mean(key, known)
    tail = f" Did you mean '{hint}'?" if hint else ""
    return OptionProblem(key, f"Unknown option '{key}' for connector '{connector}'.{tail}", hint)
