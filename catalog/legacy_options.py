"""Flink's legacy table options ('connector.type' = 'filesystem', 'connector.path', 'format.type' =
'csv', 'format.*'), the descriptor properties of Flink before 1.11 that Flink 2.3 still reads
through its legacy CSV table source and sink (Nexmark's q13 declares its side table so).

A CREATE TABLE written that way is stored as the options of today that mean the same: the rest of
sqlengine (validation, connectors, SHOW CREATE TABLE) knows one spelling. A legacy key with no
equivalent here stays as written, and validation refuses it with ``refusal``'s reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# legacy key -> today's key, for values that carry over unchanged (connector.type = 'filesystem'
# and format.type = 'csv' only: Flink 2.3's legacy factories are its CSV source and sink)
_RENAMED = {
    "connector.type": "connector",
    "connector.path": "path",
    "format.type": "format",
}
_CSV_RENAMED = {
    "format.field-delimiter": "csv.field-delimiter",
    "format.quote-character": "csv.quote-character",
    "format.ignore-parse-errors": "csv.ignore-parse-errors",
}
# the line ends Spark's CSV reader splits on by itself (the second: the two characters as written)
_LINE_ENDS = frozenset({"\n", "\r\n", "\\n", "\\r\\n"})


def is_legacy(options: Mapping[str, str]) -> bool:
    """Declared with Flink's legacy filesystem connector (the one legacy connector read here)."""
    return options.get("connector.type") == "filesystem" and "connector" not in options


def modern(options: Mapping[str, str], columns: Sequence[str]) -> dict[str, str]:
    """``options`` with the legacy keys that have an equivalent replaced by it (``columns``: the
    table's physical columns, which an explicit legacy format schema must name in order). Options
    not in the legacy style are returned as they are."""
    if not is_legacy(options):
        return dict(options)
    csv = options.get("format.type") == "csv"
    out: dict[str, str] = {}
    for key, value in options.items():
        if key in _RENAMED and (key != "format.type" or csv):
            out[_RENAMED[key]] = value
        elif csv and key in _CSV_RENAMED:
            out[_CSV_RENAMED[key]] = value
        elif not _dropped(key, value, options, columns, csv):
            out[key] = value
    if csv and "format.quote-character" not in options:
        out["csv.disable-quote-character"] = "true"  # the legacy CSV format quotes nothing by default
    if csv and options.get("format.comment-prefix") == "#":
        out["csv.allow-comments"] = "true"
    return out


def _dropped(key: str, value: str, options: Mapping[str, str], columns: Sequence[str], csv: bool) -> bool:
    """Whether the legacy option says what today's options say without it."""
    flag = value.strip().lower()
    if key in ("connector.property-version", "format.property-version"):
        return value.strip() == "1"
    if key == "update-mode":
        return flag == "append"
    if not csv:
        return False
    if key == "format.comment-prefix":
        return value == "#"
    if key == "format.ignore-first-line":
        return flag == "false"
    if key == "format.line-delimiter":
        return value in _LINE_ENDS
    if key == "format.derive-schema":
        return flag == "true" or (flag == "false" and _fields_match(options, columns))
    if key.startswith("format.fields."):
        return _fields_match(options, columns)
    return False


def _fields_match(options: Mapping[str, str], columns: Sequence[str]) -> bool:
    """An explicit format schema ('format.fields.#.name') naming the table's columns in order."""
    names = [options.get(f"format.fields.{i}.name") for i in range(len(columns))]
    declared = sum(1 for k in options if k.startswith("format.fields.") and k.endswith(".name"))
    return declared == len(columns) and names == list(columns)


def refusal(key: str, fmt: str | None) -> tuple[str, str | None] | None:
    """Why a legacy option left as written is refused, and the key of today to write instead (if
    one), with ``fmt`` the table's format; None when ``key`` is not one of Flink's legacy options."""
    either = ("Flink's legacy options are read only in a CREATE TABLE that declares "
              "'connector.type' = 'filesystem' and 'format.type' = 'csv'")
    if key == "format.type" and fmt is None:  # a legacy filesystem table of another format
        return ("Option 'format.type': of Flink's legacy formats only 'csv' is read; declare the "
                "table with today's options ('format' = ...).", "format")
    if key in _RENAMED:
        return f"Option '{key}' is Flink's legacy spelling of '{_RENAMED[key]}'; {either}.", _RENAMED[key]
    if key in _CSV_RENAMED:
        if fmt == "csv":
            return f"Option '{key}' is Flink's legacy spelling of '{_CSV_RENAMED[key]}'; {either}.", _CSV_RENAMED[key]
        return f"Option '{key}' belongs to Flink's legacy CSV format, and the format is '{fmt}'.", None
    why = _why(key, fmt)
    return (f"Option '{key}': {why}", None) if why else None


def connector_refusal(options: Mapping[str, str]) -> str | None:
    """Why a table with a legacy 'connector.type' and no 'connector' is not read: its legacy
    connector is not the filesystem one (None when it has no 'connector.type')."""
    if "connector.type" not in options:
        return None
    return (f"Option 'connector.type': of Flink's legacy connectors only 'filesystem' (with "
            f"'format.type' = 'csv') is read, not '{options['connector.type']}'; declare the "
            "table with today's options ('connector' = ...).")


def _why(key: str, fmt: str | None) -> str | None:
    legacy_only = "a table declared with Flink's legacy options ('connector.type') takes it"
    if key in ("connector.property-version", "format.property-version"):
        return f"{legacy_only}, at version '1'."
    if key == "update-mode":
        return f"{legacy_only}, as 'append' (a legacy filesystem table is append-only)."
    if key == "format.comment-prefix":
        return "only '#' is read here (as 'csv.allow-comments')."
    if key == "format.ignore-first-line":
        return ("a header line cannot be skipped here (nor by Flink's 'csv' format of today); "
                "remove it from the files.")
    if key == "format.line-delimiter":
        return "lines end in '\\n' or '\\r\\n' here."
    if fmt == "csv" and (key == "format.derive-schema" or key.startswith("format.fields.")):
        return ("the legacy format schema must name the table's physical columns in order (or "
                "be left out: the schema is then the table's).")
    if key in ("format.write-mode", "format.num-files"):
        return ("the legacy CSV sink's file layout is not offered; the table is written as a "
                "directory of part files, as 'connector' = 'filesystem' writes it.")
    if key.startswith(("connector.", "format.")):
        return ("of Flink's legacy options only the filesystem connector's CSV ones are read; "
                "declare the table with today's options ('connector' = ...).")
    return None


def written_as(key: str) -> tuple[str, ...]:
    """The legacy keys a key of today may have been written as (for positions in the source)."""
    found = [old for old, new in {**_RENAMED, **_CSV_RENAMED}.items() if new == key]
    if key == "csv.allow-comments":
        found.append("format.comment-prefix")
    return tuple(found)
