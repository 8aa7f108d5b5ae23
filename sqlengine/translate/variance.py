"""STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP with Flink's values and result types (the type of
AVG of the argument: an INT column's VAR_POP is an INT, a DECIMAL's a DECIMAL(38, max(6, s))).

Flink 2.3 computes them two ways (``sqlengine.changelog.variance`` says which where): in an
aggregation from the M2 term of Welford's algorithm in doubles, as Spark's var_pop and var_samp
do, cast to the result's type; in an OVER window from SUM(x * x), SUM(x) and COUNT(x) with every
step in the result's type, which Spark's decimal and integer arithmetic reproduce (its decimal
steps are sized and rounded as Flink's). STDDEV is POWER(var, 0.5) as Flink writes it.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from planner.logical import typing as T
from planner.logical.specs import AggFunc

FUNCTIONS = frozenset({AggFunc.STDDEV_POP, AggFunc.STDDEV_SAMP, AggFunc.VAR_POP, AggFunc.VAR_SAMP})


def _result(func: AggFunc, arg_type: exp.DataType) -> str:
    from sqlengine.types import spark_type

    return spark_type(T.agg_type(func.value, arg_type)).simpleString()


def _rooted(func: AggFunc, var: str, result: str) -> str:
    return f"CAST({f'POWER({var}, 0.5)' if func.value.startswith('STDDEV') else var} AS {result})"


def variance_sql(func: AggFunc, arg: str, arg_type: exp.DataType, filter_: str | None) -> str:
    """``func(arg)`` in an aggregation, as Spark SQL."""
    where = f" FILTER (WHERE {filter_})" if filter_ is not None else ""
    var = f"{'var_samp' if func.value.endswith('_SAMP') else 'var_pop'}(CAST({arg} AS DOUBLE)){where}"
    return _rooted(func, var, _result(func, arg_type))


def over_variance_sql(func: AggFunc, arg: str, arg_type: exp.DataType, part: Callable[[str], str]) -> str:
    """``func(arg)`` in an OVER window, as Spark SQL; ``part`` turns each of its three aggregate
    calls into the column of that call over the window (Spark's ``over`` takes a bare call)."""
    result = _result(func, arg_type)
    integral = T.is_type(arg_type, *T.INTEGERS)
    # the value in the type the steps are computed in (Flink casts the argument to the result's)
    x = f"CAST({arg} AS {'BIGINT' if integral else result if T.is_type(arg_type, exp.DType.DECIMAL) else 'DOUBLE'})"
    squares, total, n = part(f"sum({x} * {x})"), part(f"sum({x})"), part(f"count({arg})")
    div = "DIV" if integral else "/"
    denominator = f"CASE WHEN {n} = 1 THEN NULL ELSE {n} - 1 END" if func.value.endswith("_SAMP") else n
    return _rooted(func, f"(({squares} - ({total} * {total}) {div} {n}) {div} {denominator})", result)
