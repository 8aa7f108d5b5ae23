"""Which rankings a batch run numbers in the order their rows arrive.

Flink's streaming ROW_NUMBER operators (deduplication, Top-N, ORDER BY ... LIMIT) keep, of rows
that tie on their order, the one that arrived first (a deduplication keeping the last row: the
one that arrived last). Spark's batch window functions and sorts know no arrival order: among
ties they keep any row. Where the rows reach the ranking straight from one scan, with no shuffle
between (projections, filters, window table functions: all run in the scan's tasks), the order
the scan reads them in is their arrival order: each partition in source order (a file's rows in
file order, a Kafka partition's by offset, a generator's in the order it makes them), partition after
partition. A batch run then ranks ties by a sequence number taken there (Spark's
``monotonically_increasing_id``, ``sqlengine.translate.batch_only``) and keeps the rows Flink's
streaming run of that input keeps. Across files or Kafka partitions no engine promises an order:
Flink's file source reads splits in no fixed order either.

Above a join, an aggregation or a union the arrival order is the shuffle's, which no batch run
knows: those rankings keep a bounded job streaming (``planner.analysis.one_batch``).
"""

from __future__ import annotations

from planner.logical.operators import Calc, Deduplicate, Node, Scan, Sort, TopN, WindowTVF
from planner.logical.specs import AggFunc


def keeps_first_arrival(node: Node) -> bool:
    """``node`` is a ROW_NUMBER ranking, whose result among ties depends on arrival order."""
    return (isinstance(node, Deduplicate) or (isinstance(node, TopN) and node.rank_func == AggFunc.ROW_NUMBER)
            or (isinstance(node, Sort) and node.limit is not None))


def arrival_kept(node: Node) -> bool:
    """A ranking whose ties a batch run breaks in arrival order: its rows come from one scan with
    no shuffle between."""
    if not keeps_first_arrival(node):
        return False
    below = node.inputs[0]
    while isinstance(below, (Calc, WindowTVF)):
        below = below.inputs[0]
    return isinstance(below, Scan)
