"""A Python aggregate function (``planner.udf.aggregate``) as one aggregate call's accumulator in
the changelog aggregations (group, window and OVER): one instance of the user's class per
operator, its ``create_accumulator`` for a new group, ``accumulate`` for each input row (+I, +U),
``retract`` for each row taken back (-U, -D; the planner refuses an updating input when the class
has none, as Flink does), ``merge`` when a row bridges two event-time sessions, ``get_value`` for
the group's result. Arguments arrive as Flink passes
them to Python (NULL as None, an ARRAY as a list, a MAP or ROW as a dict). The accumulator is
whatever ``create_accumulator`` returns, kept in the operator's state (pickled), so it must be
picklable, as PyFlink requires too.

A method that raises, or a result that is not of the declared type, fails the job with one line
naming the call (``label``, mapped to its position by ``sqlengine.errors``) and the row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.values import thaw
from sqlengine.errors import USER_FAILURE_MARKER


def _shown(value: Any) -> str:
    text = "NULL" if value is None else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class UserAggregate(Accumulator):
    """One call's accumulator over an instance of the user's class."""

    def __init__(self, cls: type, label: str, name: str, result: pa.DataType) -> None:
        self.label, self.name, self.result = label, name, result
        self.fn = self._call(f"{name}()", cls)

    def _fail(self, what: str, err: Exception) -> RuntimeError:
        return RuntimeError(f"[{USER_FAILURE_MARKER}] {self.label}: {what} raised {type(err).__name__}: {err}")

    def _call(self, what: str, method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except Exception as err:
            raise self._fail(what, err) from None

    def new(self) -> Any:
        return self._call(f"{self.name}: create_accumulator", self.fn.create_accumulator)

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        values = [thaw(a) for a in args]
        method = self.fn.accumulate if sign > 0 else self.fn.retract
        try:
            method(acc, *values)
        except Exception as err:
            shown = ", ".join(_shown(v) for v in values)
            raise self._fail(f"{self.name}({shown}){'' if sign > 0 else ' (retract)'}", err) from None
        return acc

    def merge(self, acc: Any, other: Any) -> Any:
        """PyFlink's ``merge(accumulator, accumulators)``, which sessions need when a row bridges
        two: without it the job fails, as Flink's does."""
        method = getattr(self.fn, "merge", None)
        if not callable(method):
            raise RuntimeError(
                f"[{USER_FAILURE_MARKER}] {self.label}: two sessions merged and {self.name} has no merge(acc, accs) "
                "method (Flink's job fails there too)"
            )
        self._call(f"{self.name}: merge", method, acc, [other])
        return acc

    def value(self, acc: Any) -> Any:
        v = self._call(f"{self.name}: get_value", self.fn.get_value, acc)
        try:
            pa.scalar(v, type=self.result)
        except Exception:
            raise RuntimeError(
                f"[{USER_FAILURE_MARKER}] {self.label}: {self.name} returned {_shown(v)} ({type(v).__name__}), not a {self.result}"
            ) from None
        return v
