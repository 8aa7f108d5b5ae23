"""STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP over a changelog, as Flink 2.3 computes them:
in an aggregation from Welford's M2 in doubles, cast to the result's type; in an OVER window from
the sums of x and x * x, each step in the result's type. The expected values are Flink 2.3's
(PyFlink, batch mode) for the same inputs; after values are added and taken back the result is
that of the values still held."""

from __future__ import annotations

import decimal
import math
import pickle

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from sqlengine.changelog.aggregate import AggCallSpec, accumulator
from sqlengine.changelog.values import Typing

FUNCS = ("STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP")


def results(values: list, result: pa.DataType, changes: list[tuple[int, object]] | None = None, over: bool = False) -> tuple:
    out = []
    for f in FUNCS:
        acc = accumulator(AggCallSpec(f, typing=Typing.of(result)), None, True, over=over)
        slot = acc.new()
        for sign, v in changes or [(1, v) for v in values]:
            slot = pickle.loads(pickle.dumps(acc.update(slot, [v], sign)))  # kept in state between changes
        out.append(acc.value(slot))
    return tuple(out)


def test_an_integer_column_in_integer_arithmetic_as_flink() -> None:
    # Flink: SELECT STDDEV_POP(x), STDDEV_SAMP(x), VAR_POP(x), VAR_SAMP(x) FROM (VALUES (1),(2),(4))
    assert results([1, 2, 4], pa.int32()) == (1, 1, 1, 2)
    assert results([1, None], pa.int32()) == (0, None, 0, None)  # one value: no sample variance
    assert results([None], pa.int32()) == (None, None, None, None)


def test_an_over_window_computes_from_sums_in_integer_arithmetic_as_flink() -> None:
    # Flink: VAR_SAMP(x) of 1 and 2 is 0 in a GROUP BY (M2 = 0.5, / 1, as INT) and 1 in an OVER
    # window ((5 - 9 / 2) / 1 in INT arithmetic)
    assert results([1, 2], pa.int32()) == (0, 0, 0, 0)
    assert results([1, 2], pa.int32(), over=True) == (0, 1, 0, 1)
    assert results([1, 2, 4], pa.int32(), over=True) == (1, 1, 1, 2)


def test_a_double_column_as_flink() -> None:
    got = results([1.5, 2.0, 4.25], pa.float64())
    assert got == (1.1960583412006103, 1.4648663192705786, 1.4305555555555554, 2.145833333333333)


def test_a_decimal_column_as_decimal_38_6_as_flink() -> None:
    values = [decimal.Decimal(v) for v in ("1.50", "2.00", "4.25")]
    got = results(values, pa.decimal128(38, 6))
    assert got == tuple(decimal.Decimal(v) for v in ("1.196058", "1.464866", "1.430556", "2.145833"))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(-1000, 1000)), max_size=30))
def test_after_retractions_the_result_is_that_of_the_values_held(changes) -> None:
    """Up to the drift of floating sums, which Flink's retraction has alike: M2 may end a few ulps
    off, so a variance is compared with an absolute tolerance scaled to the squares seen, a
    standard deviation by its square, and an M2 that drifted below zero gives NULL (Flink's
    ``WelfordM2AggFunction.getValue`` does the same) only where the true variance is 0."""
    held: list[int] = []
    applied: list[tuple[int, object]] = []
    for add, v in changes:
        if not add and v not in held:
            continue  # only what is held is taken back (as a changelog does)
        held.append(v) if add else held.remove(v)
        applied.append((1 if add else -1, v))
    scale = max([v * v for _, v in applied], default=0) * len(applied) * 1e-12
    got_all, want_all = results([], pa.float64(), applied), results(held, pa.float64())
    for func, got, want in zip(FUNCS, got_all, want_all, strict=True):
        if want is None or got is None:
            assert got == want or (want == 0 and got is None), (func, got, want)
            continue
        if func.startswith("STDDEV"):
            got, want = got * got, want * want
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=scale + 1e-9), (func, got, want)
    # the sums of an OVER window in integers or decimals are exact: no drift at all
    for result in (pa.int64(), pa.decimal128(38, 6)):
        assert results([], result, applied, over=True) == results(held, result, over=True)


def test_a_retraction_leaves_the_welford_terms_of_what_is_held() -> None:
    # 3, 5 and 10, then 5 taken back: the values of 3 and 10 (exact in doubles here)
    got = results([], pa.float64(), [(1, 3.0), (1, 5.0), (1, 10.0), (-1, 5.0)])
    assert got == (3.5, 4.949747468305833, 12.25, 24.5)
