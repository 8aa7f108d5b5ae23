"""Columns of a plan node's output: name, type, and whether it is a time attribute."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sqlglot import exp

from planner.dialect import Flink


class TimeKind(StrEnum):
    ROWTIME = "rowtime"  # an event-time attribute: watermarks advance on it
    PROCTIME = "proctime"  # processing time: the wall clock when a row is processed


class WindowRole(StrEnum):
    START = "window_start"
    END = "window_end"
    TIME = "window_time"


@dataclass(frozen=True)
class WindowTag:
    """Marks a field as the start/end/time of the window with id ``window_id``; a window join
    and a window Top-N are recognized by these tags."""

    window_id: int
    role: WindowRole


@dataclass(frozen=True, eq=False)
class Field:
    name: str
    type: exp.DataType
    time: TimeKind | None = None
    nullable: bool = True
    window: WindowTag | None = None

    def __str__(self) -> str:
        attr = f" *{self.time.value}*" if self.time else ""
        return f"{self.name}: {self.type_sql}{attr}"

    @property
    def type_sql(self) -> str:
        return self.type.sql(dialect=Flink)

    # the constructor, not dataclasses.replace: binding renames every column of every relation
    def renamed(self, name: str) -> Field:
        return Field(name, self.type, self.time, self.nullable, self.window)

    def materialized(self) -> Field:
        """The same column as a plain value: no longer a time attribute."""
        return Field(self.name, self.type, None, self.nullable, self.window) if self.time else self


def unique_names(names: list[str], sep: str = "$", first: int = 1) -> list[str]:
    """Make names unique by suffixing later duplicates: `x$1`, `x$2` for internal join columns;
    with sep="" and first=0, Flink's `x0`, `x1` for the columns of a result."""
    seen: dict[str, int] = {}
    out = []
    taken = set(names)
    for n in names:
        if n not in seen:
            seen[n] = first - 1
            out.append(n)
            continue
        k = seen[n] + 1
        while f"{n}{sep}{k}" in taken:
            k += 1
        seen[n] = k
        taken.add(f"{n}{sep}{k}")
        out.append(f"{n}{sep}{k}")
    return out
