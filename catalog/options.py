"""What each connector accepts in ``WITH (...)``: option specs as data, and their validation.

Used by lint, by the shell's completer (keys inside WITH) and when a job starts. Option names are
Flink's wherever Flink has the option (``flink_name``); ours are few and say so. A key may hold
``#`` for a field name (``fields.#.kind``). Keys under ``stats.`` are planner estimates and are
allowed on every table; format options (``json.*``, ``csv.*``) are allowed for their format.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from catalog.model import TableDef

OptionType = Literal[
    "string", "int", "long", "double", "boolean", "duration", "enum", "path", "memory"
]


@dataclass(frozen=True)
class OptionSpec:
    key: str
    type: OptionType
    default: str | None = None
    required: bool = False
    description: str = ""
    choices: tuple[str, ...] = ()
    flink_name: bool = True  # Flink has an option of this name (False: sqlengine's own)
    ignored: bool = False  # accepted so Flink DDL runs unchanged, but has no effect here


@dataclass(frozen=True)
class ConnectorSpec:
    name: str
    options: tuple[OptionSpec, ...]
    source: bool
    sink: bool
    description: str
    formats: tuple[str, ...] = ()  # values of 'format' (filesystem)


@dataclass(frozen=True)
class OptionProblem:
    key: str
    message: str
    suggestion: str | None = None  # a replacement key or value


def _o(key: str, type_: OptionType, default: str | None = None, desc: str = "", **kw) -> OptionSpec:
    return OptionSpec(key, type_, default, description=desc, **kw)


CONNECTOR = _o("connector", "string", required=True, desc="The connector of the table.")
STATS_PREFIX = "stats."

# -- formats -------------------------------------------------------------------------------------
FORMATS: dict[str, tuple[OptionSpec, ...]] = {
    "json": (
        _o("json.ignore-parse-errors", "boolean", "false",
           "Skip malformed records instead of failing (same as 'errors.mode' = 'skip')."),
        _o("json.fail-on-missing-field", "boolean", "false",
           "Only 'false' is supported: a missing field reads as NULL."),
        _o("json.timestamp-format.standard", "enum", "SQL",
           "How TIMESTAMP values are written: SQL ('2024-01-01 12:00:00.123') or ISO-8601 "
           "('2024-01-01T12:00:00.123'). Reading accepts both.", choices=("SQL", "ISO-8601")),
    ),
    "csv": (
        _o("csv.field-delimiter", "string", ",", "The field separator (one character, or '\\t')."),
        _o("csv.ignore-parse-errors", "boolean", "false",
           "Skip malformed records instead of failing (same as 'errors.mode' = 'skip')."),
        _o("csv.quote-character", "string", '"', "The quote character around fields."),
        _o("csv.disable-quote-character", "boolean", "false", "Fields are never quoted."),
        _o("csv.allow-comments", "boolean", "false", "Lines starting with '#' are skipped."),
        _o("csv.escape-character", "string", None, "The escape character inside quoted fields."),
        _o("csv.null-literal", "string", None, "A field equal to this string reads as NULL."),
    ),
    "parquet": (
        _o("parquet.compression", "enum", "snappy", "Compression of written files.",
           choices=("none", "uncompressed", "snappy", "gzip", "lz4", "zstd")),
    ),
}

_FS_IGNORED = (
    "sink.rolling-policy.file-size", "sink.rolling-policy.rollover-interval",
    "sink.rolling-policy.check-interval", "sink.rolling-policy.inactivity-interval",
    "auto-compaction", "compaction.file-size", "sink.partition-commit.trigger",
    "sink.partition-commit.delay", "sink.partition-commit.watermark-time-zone",
    "sink.partition-commit.policy.kind", "sink.partition-commit.policy.class",
    "sink.partition-commit.success-file.name", "partition.time-extractor.kind",
    "partition.time-extractor.timestamp-pattern", "partition.default-name",
    "sink.parallelism", "sink.shuffle-by-partition.enable",
)

FILESYSTEM = ConnectorSpec(
    "filesystem",
    (
        CONNECTOR,
        _o("path", "path", required=True, desc="A file or a directory of files."),
        _o("format", "enum", required=True, desc="The file format.",
           choices=("json", "csv", "parquet")),
        _o("source.monitor-interval", "duration", None,
           "Unset: the source reads the files present at start and ends (bounded). Set: it keeps "
           "picking up new files (unbounded); the job's trigger interval decides how often."),
        _o("source.max-files-per-trigger", "int", None,
           "At most this many new files per micro-batch.", flink_name=False),
        _o("errors.mode", "enum", "fail",
           "What a malformed record does: fail the job, skip it (counted), or dead-letter it "
           "(counted and written with its file name to 'errors.dead-letter.path').",
           choices=("fail", "skip", "dead-letter"), flink_name=False),
        _o("errors.dead-letter.path", "path", None,
           "Where dead letters go (JSON lines); default: the job's directory.", flink_name=False),
        *(_o(k, "string", None, "Flink file sink tuning; Spark's file sink has no equivalent.",
             ignored=True) for k in _FS_IGNORED),
    ),
    source=True,
    sink=True,
    description="Files in a directory (json, csv, parquet): bounded or monitored source, "
    "exactly-once append sink.",
    formats=("json", "csv", "parquet"),
)

DATAGEN = ConnectorSpec(
    "datagen",
    (
        CONNECTOR,
        _o("rows-per-second", "long", "10000", "Rows generated per second (unbounded source)."),
        _o("number-of-rows", "long", None,
           "Total rows; set, the source is bounded and ends after them."),
        _o("seed", "long", "0", "Random values are a function of (seed, row number, field).",
           flink_name=False),
        _o("scan.parallelism", "int", None, "Partitions that generate rows (default: cores)."),
        _o("fields.#.kind", "enum", "random", "random values or a sequence from start to end.",
           choices=("random", "sequence")),
        _o("fields.#.min", "double", None, "Smallest random number (default: the type's)."),
        _o("fields.#.max", "double", None, "Largest random number (default: the type's)."),
        _o("fields.#.max-past", "duration", "0",
           "Random timestamps lie between now minus this and now."),
        _o("fields.#.length", "int", "100",
           "Length of random strings and bytes; size of arrays, maps, multisets."),
        _o("fields.#.var-len", "boolean", "false", "Random strings of length 1..length."),
        _o("fields.#.start", "string", None,
           "First value of a sequence (a number, or a timestamp for TIMESTAMP fields)."),
        _o("fields.#.end", "string", None,
           "Last value of a sequence; the source ends after it (bounded)."),
        _o("fields.#.step", "duration", "1 s",
           "Step of a TIMESTAMP sequence.", flink_name=False),
        _o("fields.#.null-rate", "double", "0", "Fraction of NULL values, 0..1."),
    ),
    source=True,
    sink=False,
    description="Generated rows (random or sequences), computed inside Spark; bounded with "
    "'number-of-rows'.",
)

NEXMARK = ConnectorSpec(
    "nexmark",
    (
        CONNECTOR,
        _o("first-event.rate", "int", "10000",
           "Events per second of event time: event i happens at base-time + i / rate."),
        _o("next-event.rate", "int", "10000", "Accepted; like Nexmark's generator, only "
           "'first-event.rate' sets the event-time spacing."),
        _o("events.num", "long", "0", "Total events; 0 means unbounded."),
        _o("keep-alive", "boolean", "false",
           "After the last event the source stays open (the job does not end)."),
        _o("stop-at", "long", "-1", "Stop generating after this many events (-1: no stop)."),
        _o("max-emit-speed", "boolean", "true",
           "Emit as fast as possible; false: emit 'first-event.rate' events per wall-clock "
           "second."),
        _o("person.proportion", "int", "1", "Share of person events."),
        _o("auction.proportion", "int", "3", "Share of auction events."),
        _o("bid.proportion", "int", "46", "Share of bid events."),
        _o("person.avg-size", "memory", "200b", "Average person size (pads 'extra')."),
        _o("auction.avg-size", "memory", "500b", "Average auction size (pads 'extra')."),
        _o("bid.avg-size", "memory", "100b", "Average bid size (pads 'extra')."),
        _o("bid.hot-ratio.auctions", "int", "2",
           "A bid is for a hot auction with probability 1 - 1/ratio."),
        _o("bid.hot-ratio.bidders", "int", "4",
           "A bid is by a hot bidder with probability 1 - 1/ratio."),
        _o("auction.hot-ratio.sellers", "int", "4",
           "An auction is by a hot seller with probability 1 - 1/ratio."),
        _o("rate.shape", "enum", "SQUARE", "Not modelled: the rate is constant.",
           choices=("SQUARE", "SINE"), ignored=True),
        _o("rate.period", "duration", "600 s", "Not modelled: the rate is constant.", ignored=True),
        _o("rate.limited", "boolean", "false", "Not modelled.", ignored=True),
        _o("base-time", "string", "2020-01-01 00:00:00",
           "Event time of event 0: a UTC timestamp or epoch milliseconds.", flink_name=False),
        _o("seed", "long", "0", "Seed of the generator: same seed, same events.",
           flink_name=False),
        _o("rows-per-batch", "long", "1000000",
           "Events per micro-batch of an unbounded source at max emit speed.", flink_name=False),
    ),
    source=True,
    sink=False,
    description="The Nexmark benchmark's person/auction/bid event stream, deterministic and "
    "computed inside Spark.",
)

PRINT = ConnectorSpec(
    "print",
    (
        CONNECTOR,
        _o("print-identifier", "string", None, "A prefix before each printed row."),
        _o("standard-error", "boolean", "false", "Print to standard error instead of output."),
        _o("sink.parallelism", "int", None, "Rows are printed by the driver.", ignored=True),
    ),
    source=False,
    sink=True,
    description="Prints each row as +I[...] (+U for updates) to standard output.",
)

BLACKHOLE = ConnectorSpec(
    "blackhole",
    (CONNECTOR,),
    source=False,
    sink=True,
    description="Discards every row (for benchmarks).",
)

CONNECTORS: dict[str, ConnectorSpec] = {
    c.name: c for c in (FILESYSTEM, DATAGEN, NEXMARK, PRINT, BLACKHOLE)
}


# -- values ---------------------------------------------------------------------------------------
_DURATION_UNITS = {
    **dict.fromkeys(("d", "day", "days"), 86400.0),
    **dict.fromkeys(("h", "hour", "hours"), 3600.0),
    **dict.fromkeys(("min", "m", "minute", "minutes"), 60.0),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("ms", "milli", "millis", "millisecond", "milliseconds"), 1e-3),
    **dict.fromkeys(("us", "µs", "micro", "micros", "microsecond", "microseconds"), 1e-6),
    **dict.fromkeys(("ns", "nano", "nanos", "nanosecond", "nanoseconds"), 1e-9),
}
_MEMORY_UNITS = {
    **dict.fromkeys(("", "b", "bytes"), 1),
    **dict.fromkeys(("k", "kb", "kibibytes"), 1024),
    **dict.fromkeys(("m", "mb", "mebibytes"), 1024**2),
    **dict.fromkeys(("g", "gb", "gibibytes"), 1024**3),
}
_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Zµ]*)\s*$")


def parse_duration(text: str) -> float:
    """A Flink duration ('10 s', '500ms', '1 min', '2h'; no unit = milliseconds) in seconds."""
    m = _AMOUNT.match(text)
    unit = m.group(2).lower() if m else None
    if m is None or (unit and unit not in _DURATION_UNITS):
        raise ValueError(f"'{text}' is not a duration (e.g. '10 s', '500 ms', '1 min')")
    return float(m.group(1)) * (_DURATION_UNITS[unit] if unit else 1e-3)


def parse_memory(text: str) -> int:
    """A Flink memory size ('200b', '1 kb', '4m') in bytes."""
    m = _AMOUNT.match(text)
    if m is None or m.group(2).lower() not in _MEMORY_UNITS:
        raise ValueError(f"'{text}' is not a size (e.g. '200b', '1 kb', '4 mb')")
    return int(float(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()])


def parse_bool(text: str) -> bool:
    low = text.strip().lower()
    if low not in ("true", "false"):
        raise ValueError(f"'{text}' is not a boolean (true or false)")
    return low == "true"


def check_value(spec: OptionSpec, value: str) -> str | None:
    """Why ``value`` does not fit ``spec``, or None."""
    try:
        if spec.type in ("int", "long"):
            int(value.strip())
        elif spec.type == "double":
            float(value.strip())
        elif spec.type == "boolean":
            parse_bool(value)
        elif spec.type == "duration":
            parse_duration(value)
        elif spec.type == "memory":
            parse_memory(value)
        elif spec.type == "enum" and value not in spec.choices:
            return f"'{value}' is not one of {', '.join(spec.choices)}"
        elif spec.type == "path" and not value.strip():
            return "the path is empty"
    except ValueError as err:
        msg = str(err)
        if "is not" in msg:
            return msg
        article = "an" if spec.type[0] in "ai" else "a"
        return f"'{value}' is not {article} {spec.type}"
    return None


# -- lookup ---------------------------------------------------------------------------------------
def _pattern(key: str) -> re.Pattern[str]:
    return re.compile("^" + re.escape(key).replace("\\#", "(.+)") + "$")


def table_format(options: dict[str, str]) -> str | None:
    return options.get("format") or options.get("value.format")


def find_spec(
    connector: str, key: str, fmt: str | None = None
) -> tuple[OptionSpec, str | None] | None:
    """The spec of ``key`` and the field name a ``#`` matched, or None if unknown."""
    spec = CONNECTORS.get(connector)
    candidates = list(spec.options) if spec else [CONNECTOR]
    if fmt in FORMATS:
        candidates += FORMATS[fmt]
    for opt in candidates:
        if "#" not in opt.key:
            if opt.key == key:
                return opt, None
        elif m := _pattern(opt.key).match(key):
            return opt, m.group(1)
    return None


def option_keys(connector: str, fmt: str | None = None, fields: tuple[str, ...] = ()) -> list[str]:
    """Every key a table of ``connector`` accepts, ``#`` expanded over ``fields`` (completion)."""
    spec = CONNECTORS.get(connector)
    opts = list(spec.options) if spec else [CONNECTOR]
    if fmt in FORMATS:
        opts += FORMATS[fmt]
    keys: list[str] = []
    for opt in opts:
        if "#" in opt.key:
            keys += [opt.key.replace("#", f) for f in fields] or [opt.key]
        else:
            keys.append(opt.key)
    return keys


def _did_you_mean(word: str, choices: list[str]) -> str | None:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


# -- validation ----------------------------------------------------------------------------------
def validate_options(table: TableDef) -> list[OptionProblem]:
    """Problems with ``table``'s WITH options: unknown keys, missing required, bad values."""
    options = table.options
    name = table.connector
    if not name:
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
        opt, field = found
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
        why = check_value(opt, value)
        if why:
            hint = _did_you_mean(value, list(opt.choices)) if opt.type == "enum" else None
            problems.append(OptionProblem(key, f"Option '{key}': {why}.", hint))
    for opt in (*spec.options, *FORMATS.get(fmt or "", ())):
        if opt.required and opt.key not in options:
            problems.append(
                OptionProblem(opt.key, f"Table `{table.name}` needs the option '{opt.key}'.")
            )
    problems += _semantic(table, fmt)
    return problems


def _unknown(key: str, connector: str, fmt: str | None, known: list[str]) -> OptionProblem:
    prefix = key.split(".", 1)[0]
    if prefix in FORMATS and prefix != fmt and "." in key:
        return OptionProblem(
            key, f"Option '{key}' is for format '{prefix}', but the format is '{fmt}'."
        )
    hint = _did_you_mean(key, known)
    tail = f" Did you mean '{hint}'?" if hint else ""
    return OptionProblem(key, f"Unknown option '{key}' for connector '{connector}'.{tail}", hint)


def _semantic(table: TableDef, fmt: str | None) -> list[OptionProblem]:
    """Checks across options that the per-key specs cannot express."""
    opts = table.options
    out: list[OptionProblem] = []
    if table.connector == "filesystem":
        if fmt == "parquet" and opts.get("errors.mode") == "dead-letter":
            out.append(OptionProblem(
                "errors.mode",
                "Parquet files have no raw records to dead-letter; use 'skip' (corrupt files "
                "are skipped) or 'fail'.", "skip"))
        if opts.get("json.fail-on-missing-field", "false").lower() == "true":
            out.append(OptionProblem(
                "json.fail-on-missing-field",
                "Only 'json.fail-on-missing-field' = 'false' is supported: missing fields read "
                "as NULL.", "false"))
    if table.connector == "datagen":
        for col in table.column_names:
            if opts.get(f"fields.{col}.kind") == "sequence":
                for end in ("start", "end"):
                    key = f"fields.{col}.{end}"
                    is_ts = "TIMESTAMP" in (table.column(col).type or "").upper()
                    if key not in opts and not (is_ts and end == "end"):
                        out.append(OptionProblem(key, f"A sequence field needs '{key}'."))
    return out
