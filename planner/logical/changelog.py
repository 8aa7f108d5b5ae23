"""Changelogs: what kinds of rows an operator emits (Flink's ChangelogMode) and the kind each row
carries (Flink's RowKind). Operators declare their changelog behaviour with these types
(``Node.changelog``); the runtime marks result rows with ``RowKind``."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Mode(StrEnum):
    INSERT_ONLY = "insert-only"
    UPSERT = "upsert"  # rows replace the row of their key (+I, +U, -D)
    RETRACT = "retract"  # old rows are taken back explicitly (+I, -U, +U, -D)


class RowKind(StrEnum):
    """The kind of one changelog row, as Flink prints it."""

    INSERT = "+I"
    UPDATE_BEFORE = "-U"
    UPDATE_AFTER = "+U"
    DELETE = "-D"

    @property
    def adds(self) -> bool:
        """Whether the row is in the table after this change (+I, +U)."""
        return self in (RowKind.INSERT, RowKind.UPDATE_AFTER)

    @property
    def code(self) -> int:
        """The kind as rows carry it between operators (Flink's RowKind byte value): 0 +I,
        1 -U, 2 +U, 3 -D."""
        return _CODES[self]

    @staticmethod
    def of_code(code: int) -> RowKind:
        return _KINDS[code]


_KINDS = (RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE)
_CODES = {k: i for i, k in enumerate(_KINDS)}


@dataclass(frozen=True)
class Changelog:
    mode: Mode
    key: tuple[str, ...] = ()  # upsert key

    def __str__(self) -> str:
        if self.mode == Mode.UPSERT and self.key:
            return f"upsert[{', '.join(self.key)}]"
        return self.mode.value

    @property
    def insert_only(self) -> bool:
        return self.mode == Mode.INSERT_ONLY

    @property
    def kinds(self) -> str:
        """The changelog row kinds this mode produces, as Flink prints them."""
        return {Mode.INSERT_ONLY: "[I]", Mode.UPSERT: "[I,UA,D]", Mode.RETRACT: "[I,UB,UA,D]"}[self.mode]


INSERT_ONLY = Changelog(Mode.INSERT_ONLY)
RETRACT = Changelog(Mode.RETRACT)
