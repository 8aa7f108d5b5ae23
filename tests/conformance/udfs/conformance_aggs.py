"""Python aggregate functions of the conformance suite: plain classes with PyFlink's
AggregateFunction methods. sqlengine runs them as they are (CREATE FUNCTION ... LANGUAGE
PYTHON in ../functions.sql); make_expected.py runs them on Flink through flink_aggs.py, which
wraps each in PyFlink's udaf()."""

from __future__ import annotations


class WeightedAvg:
    """SUM(value * weight) / SUM(weight) as a DOUBLE; NULL when no weight was counted."""

    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, value: int | None, weight: int | None) -> None:
        if value is not None and weight is not None:
            acc[0] += value * weight
            acc[1] += weight

    def retract(self, acc, value: int | None, weight: int | None) -> None:
        if value is not None and weight is not None:
            acc[0] -= value * weight
            acc[1] -= weight

    def merge(self, acc, accs) -> None:
        for other in accs:  # two sessions a row bridges
            acc[0] += other[0]
            acc[1] += other[1]

    def get_value(self, acc) -> float | None:
        return None if acc[1] == 0 else acc[0] / acc[1]


class Spread:
    """MAX - MIN of the values (BIGINT), over insert-only input: no retract."""

    def create_accumulator(self):
        return [None, None]

    def accumulate(self, acc, value: int | None) -> None:
        if value is None:
            return
        acc[0] = value if acc[0] is None else min(acc[0], value)
        acc[1] = value if acc[1] is None else max(acc[1], value)

    def merge(self, acc, accs) -> None:
        for other in accs:
            if other[0] is not None:
                acc[0] = other[0] if acc[0] is None else min(acc[0], other[0])
                acc[1] = other[1] if acc[1] is None else max(acc[1], other[1])

    def get_value(self, acc) -> int | None:
        return None if acc[0] is None else acc[1] - acc[0]
