"""The conformance suite's Python aggregate functions (conformance_aggs.py) as PyFlink needs them:
subclasses of its AggregateFunction, wrapped in udaf() with their types. Used by make_expected.py
only (PyFlink is not a dependency of sqlengine)."""

from __future__ import annotations

import conformance_aggs as plain
from pyflink.table import AggregateFunction, DataTypes
from pyflink.table.udf import udaf


class _WeightedAvg(plain.WeightedAvg, AggregateFunction):
    pass


class _Spread(plain.Spread, AggregateFunction):
    pass


FUNCTIONS = {
    "wavg": udaf(_WeightedAvg(), result_type=DataTypes.DOUBLE(), accumulator_type=DataTypes.ARRAY(DataTypes.BIGINT())),
    "spread": udaf(_Spread(), result_type=DataTypes.BIGINT(), accumulator_type=DataTypes.ARRAY(DataTypes.BIGINT())),
}
