"""What a connector is, told from its options alone (no Spark, no I/O): the options it accepts,
whether a source is finite, how many rows and how fast it produces, which columns take a known
set of values, whether a bounded read arrives in one micro-batch, and what a sink accepts.

The planner (state verdicts, lookup joins), the estimates and the runtime (``sqlengine``'s
connectors and jobs) all ask the one ``ConnectorSpec`` of a table's connector, so they cannot
disagree. A value that cannot be read (an unresolved ``${VARIABLE}``) counts as unknown here;
validation reports it where it is an error."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from catalog.activity import KeyActivity
from catalog.model import TableDef
from catalog.option_types import OptionProblem, OptionSpec, opt, parse_bool, parse_duration, parse_memory

CONNECTOR = opt("connector", "string", required=True, desc="The connector of the table.")

T = TypeVar("T")


@dataclass(frozen=True)
class Rate:
    """Rows a source produces per second, and where that figure comes from (for estimates)."""

    rows_per_second: float
    source: str


class Options:
    """A table's option values, read with the spec's defaults; unreadable values are None."""

    def __init__(self, spec: ConnectorSpec, table: TableDef):
        self.spec, self.table = spec, table

    def raw(self, key: str) -> str | None:
        value = self.table.options.get(key)
        if value is not None:
            return value
        found = next((o for o in self.spec.options if o.key == key), None)
        return found.default if found is not None else None

    def _parse(self, key: str, parse: Callable[[str], T]) -> T | None:
        value = self.raw(key)
        if value is None or "${" in value:
            return None
        try:
            return parse(value)
        except ValueError:
            return None

    def integer(self, key: str) -> int | None:
        return self._parse(key, lambda v: int(v.strip()))

    def number(self, key: str) -> float | None:
        return self._parse(key, lambda v: float(v.strip()))

    def flag(self, key: str) -> bool:
        return bool(self._parse(key, parse_bool))

    def seconds(self, key: str) -> float | None:
        return self._parse(key, parse_duration)

    def memory(self, key: str) -> int | None:
        return self._parse(key, parse_memory)

    def has(self, key: str) -> bool:
        return key in self.table.options


class ConnectorSpec:
    """One connector's options and what they say about its data. Subclasses override what their
    connector knows; the defaults say "unbounded, nothing known"."""

    name: ClassVar[str]
    options: ClassVar[tuple[OptionSpec, ...]]
    source: ClassVar[bool]
    sink: ClassVar[bool]
    description: ClassVar[str]
    formats: ClassVar[tuple[str, ...]] = ()  # values of 'format'
    # as a sink: takes an updating result (rows replaced by key), not only appended rows
    accepts_updates: ClassVar[bool] = False
    # as a sink: keeps nothing it is sent, so no reader tells a changelog from its final table
    discards_rows: ClassVar[bool] = False
    # as a source: a changelog on the primary key (upserts and deletes), not appended rows
    upsert_source: ClassVar[bool] = False
    # format options also come as 'key.<format>.*' and 'value.<format>.*' (Kafka's key and value)
    prefixed_formats: ClassVar[bool] = False

    def values(self, table: TableDef) -> Options:
        return Options(self, table)

    def bounded(self, table: TableDef) -> bool:
        """Whether the source ends by itself (Flink's Boundedness.BOUNDED)."""
        return False

    def rows(self, table: TableDef) -> int | None:
        """How many rows a bounded source produces, when its options fix it."""
        return None

    def rate(self, table: TableDef) -> Rate | None:
        """Rows per second of event time, when the options say."""
        return None

    def column_domain(self, table: TableDef, path: str) -> int | None:
        """How many distinct values a column (or nested field ``a.b``) takes, when fixed."""
        return None

    def column_activity(self, table: TableDef, path: str) -> KeyActivity | None:
        """How a column's keys come and go over time (ids drawn from a sliding set of active
        ones), when the source's generator fixes it; see catalog.activity."""
        return None

    def column_avg_length(self, table: TableDef, path: str) -> int | None:
        """The average length in characters of a string column, when the source's generator
        fixes it (the state estimates size stored rows with it)."""
        return None

    def selectivity(self, table: TableDef, column: str, value: str) -> float | None:
        """Share of the rows with ``column = value``, when the source fixes it."""
        return None

    def one_batch(self, table: TableDef) -> bool:
        """Whether a bounded read delivers all of its rows in the first micro-batch."""
        return False

    def poll_seconds(self, table: TableDef) -> float | None:
        """How often an unbounded source looks for new input; None: input is there at any time."""
        return None

    def problems(self, table: TableDef, fmt: str | None) -> list[OptionProblem]:
        """Checks across options that the per-key specs cannot express."""
        return []
