"""The aggregate functions whose result depends on the order rows arrive in, with Flink's
semantics over a changelog (its FirstValueWithRetract, LastValueWithRetract and
ListAggWithRetract functions): FIRST_VALUE and LAST_VALUE, the value of the earliest or latest
arrived row still held, NULLs ignored; LISTAGG, the held values joined in arrival order by the
separator (',' unless given), NULLs ignored, NULL when none is held. A retraction takes back the
earliest arrived occurrence of its value, as Flink's does. Used by the group aggregation over
updates, OVER windows on a stream and windows on processing time (``aggregate.accumulator``).
LAG, in an OVER window on time only, is Flink's LagAggFunction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.values import thaw


class FirstLast(Accumulator):
    """[next arrival number, {arrival: value}] (a dict keeps arrival order) while values may be
    taken back; [value] otherwise (the first non-NULL, or the latest)."""

    def __init__(self, last: bool, retracting: bool) -> None:
        self.last, self.retracting = last, retracting

    def new(self) -> Any:
        return [0, {}] if self.retracting else [None]

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        v = args[0]
        if v is None:
            return acc
        if not self.retracting:
            if self.last or acc[0] is None:
                acc[0] = v
            return acc
        held: dict[int, Any] = acc[1]
        if sign > 0:
            held[acc[0]] = v
            acc[0] += 1
            return acc
        for arrival, value in held.items():  # the earliest occurrence of the value
            if value == v:
                del held[arrival]
                break
        return acc

    def value(self, acc: Any) -> Any:
        if not self.retracting:
            return thaw(acc[0])
        held: dict[int, Any] = acc[1]
        if not held:
            return None
        return thaw(next(reversed(held.values())) if self.last else next(iter(held.values())))


class ListAgg(Accumulator):
    """[values in arrival order, separator]; a retraction removes the earliest equal value."""

    def new(self) -> Any:
        return [[], ","]

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        v = args[0]
        if len(args) > 1 and args[1] is not None:
            acc[1] = args[1]  # the separator (the latest given, as Flink's LISTAGG takes it)
        if v is None:
            return acc
        if sign > 0:
            acc[0].append(v)
        elif v in acc[0]:
            acc[0].remove(v)
        return acc

    def value(self, acc: Any) -> Any:
        return acc[1].join(acc[0]) if acc[0] else None


class Lag(Accumulator):
    """LAG(value, offset, default): the value ``offset`` rows before the last row taken, else
    that row's default (NULL without one) while fewer rows came; the slot is [the last offset + 1
    values, the last default]. A RANGE frame takes the rows of one time together, so each of them
    gets the value ``offset`` rows before the last of them, as Flink gives. Its frame (the
    window's rows so far) never takes a row back."""

    def __init__(self, offset: int, has_default: bool) -> None:
        self.offset, self.has_default = offset, has_default

    def new(self) -> Any:
        return [[], None]

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        assert sign > 0, "LAG's frame takes no row back"
        values = acc[0][max(0, len(acc[0]) - self.offset) :] if self.offset else []
        values.append(args[0])
        return [values, args[1] if self.has_default else None]

    def value(self, acc: Any) -> Any:
        values, default = acc
        return thaw(values[0]) if len(values) == self.offset + 1 else thaw(default)
