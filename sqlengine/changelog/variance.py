"""STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP over a changelog, computed as Flink 2.3 computes
them, which is two ways (read from its plans):

- In an aggregation (GROUP BY, windows) its planner rewrites each call into the M2 term of
  Welford's online algorithm (its internal WELFORD_M2 aggregate, in doubles, with retraction) and
  COUNT(x): VAR_POP = M2 / COUNT, VAR_SAMP = M2 / (COUNT - 1) (NULL for one value), STDDEV =
  POWER(var, 0.5), cast to the result's type (that of AVG: an integer column's own type,
  truncated; DECIMAL(38, max(6, s)), rounded half up; DOUBLE). ``Welford`` keeps (count, mean,
  M2), updated in arrival order as Flink updates it, so a retraction drifts as Flink's does.
- In an OVER window Calcite expands each call into sums at conversion: VAR_POP =
  (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x), every step in the result's type (integer
  division for an integer column; DECIMAL(38, 6) rounded half up at each step). ``Sums`` keeps
  (count, SUM(x), SUM(x * x)).

``sqlengine.translate.variance`` composes the same from Spark's aggregates."""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from typing import Any

from sqlengine.changelog.accumulator import Accumulator
from sqlengine.changelog.values import DECIMAL_CONTEXT, Typing

FUNCTIONS = ("STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP")


class _Variance(Accumulator):
    """What the two ways share: the result's type, sample or population, and a root or not."""

    def __init__(self, func: str, typing: Typing) -> None:
        self.typing = typing
        self.sample = func.endswith("_SAMP")
        self.root = func.startswith("STDDEV")


class Welford(_Variance):
    """[n, mean, m2]: the count of non-NULL values and Welford's running mean and M2."""

    def new(self) -> Any:
        return [0, 0.0, 0.0]

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        if args[0] is None:
            return acc
        x = float(args[0])
        n, mean, m2 = acc
        n += sign
        if n <= 0:  # nothing held (or more taken back than added): start again from nothing
            return [n, 0.0, 0.0] if n == 0 else [n, mean, m2]
        if sign > 0:
            delta = x - mean
            mean += delta / n
            m2 += delta * (x - mean)
        else:
            delta2 = x - mean
            mean -= delta2 / n
            m2 -= (x - mean) * delta2
        return [n, mean, m2]

    def value(self, acc: Any) -> Any:
        n, _, m2 = acc
        if n <= 0 or m2 < 0 or (self.sample and n == 1):
            return None
        v = m2 / (n - 1 if self.sample else n)
        return _cast_double(math.pow(v, 0.5) if self.root else v, self.typing)


def _cast_double(v: float, typing: Typing) -> Any:
    """A double cast to the result's type: an integer truncates; a DECIMAL takes the double's
    shortest text, rounded half up."""
    if typing.kind == "long":
        return typing.cast(int(v)) if math.isfinite(v) else None
    if typing.kind == "decimal":
        return typing.cast(decimal.Decimal(repr(v))) if math.isfinite(v) else None
    return typing.cast(v)


class Sums(_Variance):
    """[count of non-NULL values, SUM(x), SUM(x * x)], in the result's type."""

    def __init__(self, func: str, typing: Typing) -> None:
        super().__init__(func, typing)
        self.step = decimal.Decimal(1).scaleb(-typing.scale)

    def _round(self, v: decimal.Decimal) -> decimal.Decimal:
        return v.quantize(self.step, context=DECIMAL_CONTEXT)

    def new(self) -> Any:
        return [0, 0, 0]

    def update(self, acc: Any, args: Sequence[Any], sign: int) -> Any:
        x = args[0]
        if x is None:
            return acc
        kind = self.typing.kind
        square: Any
        if kind == "decimal":
            x = self._round(decimal.Decimal(x))
            square = self._round(DECIMAL_CONTEXT.multiply(x, x))
        elif kind == "long":
            x = int(x)
            square = x * x
        else:
            x = float(x)
            square = x * x
        acc[0] += sign
        acc[1] = acc[1] + x if sign > 0 else acc[1] - x
        acc[2] = acc[2] + square if sign > 0 else acc[2] - square
        return acc

    def value(self, acc: Any) -> Any:
        n, total, squares = acc
        if n <= 0 or (self.sample and n == 1):
            return None
        d = n - 1 if self.sample else n
        kind = self.typing.kind
        var: Any
        if kind == "long":  # Java's integer division; both quotients are of non-negative values
            var = (squares - total * total // n) // d
        elif kind == "decimal":
            c, r = DECIMAL_CONTEXT, self._round
            mean_square = r(c.divide(r(c.multiply(total, total)), n))
            var = r(c.divide(c.subtract(decimal.Decimal(squares), mean_square), d))
        else:
            var = (float(squares) - float(total) * float(total) / n) / d
        if not self.root:
            return self.typing.cast(var)
        return _cast_double(math.pow(float(var), 0.5) if var >= 0 else math.nan, self.typing)
