"""Join operators: the regular join (keeps both sides), the interval join (rows kept while the
other side's time bound can match), the window join, the event-time temporal join and the
lookup join (no state). Their common shape (two inputs, a kind, a condition over the left fields
followed by the right ones, the equi-join keys) is ``Join``'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from sqlglot import exp

from planner.logical.changelog import INSERT_ONLY, RETRACT, Changelog
from planner.logical.fields import TimeKind
from planner.logical.operators import Node
from planner.logical.specs import OperatorKind, WindowSpec, fmt_ms, sql


class JoinKind(StrEnum):
    INNER = "INNER"
    LEFT = "LEFT"
    RIGHT = "RIGHT"
    FULL = "FULL"
    SEMI = "SEMI"
    ANTI = "ANTI"

    @property
    def outer(self) -> bool:
        return self in (JoinKind.LEFT, JoinKind.RIGHT, JoinKind.FULL)


@dataclass(frozen=True, eq=False)
class Join(Node):
    """A regular join: keeps the rows of both sides to match the other side's future rows."""

    KIND = OperatorKind.REGULAR_JOIN
    stateful = True
    left: Node = field(kw_only=True)
    right: Node = field(kw_only=True)
    join_kind: JoinKind = field(default=JoinKind.INNER, kw_only=True)
    condition: exp.Expr | None = field(default=None, kw_only=True)  # over left+right fields
    equi_keys: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)  # (left, right)

    @property
    def inputs(self) -> tuple[Node, ...]:
        return (self.left, self.right)

    def describe(self) -> str:
        s = f"joinType=[{self.join_kind.value}]"
        if self.condition is not None:
            s += f", where=[{sql(self.condition)}]"
        return s

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        updating = any(not c.insert_only for c in inputs)
        if updating or self.join_kind.outer or self.join_kind == JoinKind.ANTI:
            return RETRACT
        return INSERT_ONLY


@dataclass(frozen=True, eq=False)
class IntervalJoin(Join):
    """Rows of each side are kept only while the other side's time bound can still match."""

    KIND = OperatorKind.INTERVAL_JOIN
    left_time: str = field(kw_only=True)
    right_time: str = field(kw_only=True)
    # left_time BETWEEN right_time + lower_ms AND right_time + upper_ms
    lower_ms: int = field(kw_only=True)
    upper_ms: int = field(kw_only=True)

    def describe(self) -> str:
        return (
            f"joinType=[{self.join_kind.value}], "
            f"bound=[{self.left_time} BETWEEN {self.right_time} {_signed(self.lower_ms)} "
            f"AND {self.right_time} {_signed(self.upper_ms)}], where=[{sql(self.condition)}]"
        )

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return INSERT_ONLY

    def waits_on_watermark(self) -> bool:
        return not self.on_proctime

    @property
    def on_proctime(self) -> bool:
        """Both times are when the rows were read (Flink's processing-time interval join)."""
        f = self.field(self.left_time)
        return f is not None and f.time == TimeKind.PROCTIME


def _signed(ms: int) -> str:
    return f"- {fmt_ms(-ms)}" if ms < 0 else f"+ {fmt_ms(ms)}"


@dataclass(frozen=True, eq=False)
class WindowJoin(Join):
    KIND = OperatorKind.WINDOW_JOIN
    window: WindowSpec = field(kw_only=True)
    # the window of each side (their ids differ; the binder checked that they are alike)
    left_window: int = field(kw_only=True)
    right_window: int = field(kw_only=True)

    def describe(self) -> str:
        return f"joinType=[{self.join_kind.value}], window=[{self.window}], where=[{sql(self.condition)}]"

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return INSERT_ONLY

    def waits_on_watermark(self) -> bool:
        return True


@dataclass(frozen=True, eq=False)
class TemporalJoin(Join):
    """``FOR SYSTEM_TIME AS OF left.rowtime`` against a versioned table."""

    KIND = OperatorKind.TEMPORAL_JOIN
    left_time: str = field(kw_only=True)

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return inputs[0]

    def waits_on_watermark(self) -> bool:
        return True


@dataclass(frozen=True, eq=False)
class LookupJoin(Join):
    """``FOR SYSTEM_TIME AS OF left.proctime``: each row looks up the current right side. It
    keeps no state: the right side is read when a row arrives."""

    KIND = OperatorKind.LOOKUP_JOIN
    stateful = False

    def changelog(self, inputs: Sequence[Changelog]) -> Changelog:
        return inputs[0]
