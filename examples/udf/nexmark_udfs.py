"""Nexmark q14's user function in Python, ``count_char(extra, 'c')``, and an aggregate function.

    SET 'python.files' = 'examples/udf/nexmark_udfs.py';
    CREATE TEMPORARY FUNCTION count_char AS 'nexmark_udfs.count_char' LANGUAGE PYTHON;

The Flink original (com.github.nexmark.flink.udf.CountChar) counts the occurrences of the first
character of its second argument, 0 for a NULL string. A plain annotated function: no import of
sqlengine, no decorator (``int`` is BIGINT, ``str`` STRING)."""

from __future__ import annotations


def count_char(s: str | None, character: str) -> int:
    if s is None:
        return 0
    return s.count(character[0])


class WeightedAvg:
    """An aggregate function (a class with PyFlink's AggregateFunction methods, no import needed):
    the average of ``value`` weighted by ``weight``, NULL while no weight was counted.

        CREATE TEMPORARY FUNCTION wavg AS 'nexmark_udfs.WeightedAvg' LANGUAGE PYTHON;
        SELECT auction, wavg(price, bidder) FROM bid GROUP BY auction;

    ``retract`` lets it aggregate an input that updates (Flink needs it there too)."""

    def create_accumulator(self) -> list[int]:
        return [0, 0]  # the weighted sum, the sum of the weights

    def accumulate(self, acc: list[int], value: int | None, weight: int | None) -> None:
        if value is not None and weight is not None:
            acc[0] += value * weight
            acc[1] += weight

    def retract(self, acc: list[int], value: int | None, weight: int | None) -> None:
        if value is not None and weight is not None:
            acc[0] -= value * weight
            acc[1] -= weight

    def get_value(self, acc: list[int]) -> float | None:
        return acc[0] / acc[1] if acc[1] else None
