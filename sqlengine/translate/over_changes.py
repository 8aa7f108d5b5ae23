"""OVER aggregation over changes on Spark (``sqlengine.changelog.over_changes``): where the
planner decided an OVER runs over changes (its input updates, or its order is no time attribute:
``planner.analysis.physical``), its rows, hashed into buckets by the partition key, go to the
operator with their kind, and its changes come out as rows that carry theirs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.logical import typing as T
from planner.logical.operators import OverAggregate
from sqlengine.translate.changelog import _arrow_schema
from sqlengine.translate.changelog_aggregates import over_payload, over_result
from sqlengine.translate.core import Rel, Translator
from sqlengine.translate.expressions import quote

if TYPE_CHECKING:
    from pyspark.sql import Column


def translate_over_changes(t: Translator, node: OverAggregate) -> Rel:
    from sqlengine.changelog.over_changes import OverChanges

    p = over_payload(t, node, _range_value(node))
    order = node.order or ((node.order_field, False),)
    op = OverChanges(
        [p.in_names.index(k) for k in node.partition_keys], len(p.in_names), [(p.in_names.index(n), d) for n, d in order],
        p.in_types, node.rows, node.preceding, p.specs, p.arg_types, _arrow_schema(t, p.out),
        node.state_ttl(t.ttl_ms) if t.streaming else None,
    )
    return over_result(t, node, p, op)


def _range_value(node: OverAggregate) -> Column:
    """What a RANGE frame's size is measured on: a time's epoch milliseconds (the frame's size is
    in milliseconds), a date's too, or the number itself; NULL for a frame without a size."""
    from pyspark.sql import functions as F

    f = node.input.field(node.order_field)
    col = F.col(quote(node.order_field))
    if node.rows or node.preceding is None or f is None:
        return F.lit(None).cast("long")
    if T.is_type(f.type, *T.TIMESTAMPS):
        return F.unix_millis(col)
    if T.is_type(f.type, T.D.DATE):
        return F.unix_date(col).cast("long") * F.lit(86_400_000)
    return col
