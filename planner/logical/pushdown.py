"""Filters offered to sources, as Flink's ``PushFilterIntoTableSourceScanRule`` does: the
conjuncts of a filter right on a scan become the scan's ``filters``, which its connector may use
to produce fewer rows (a generator makes only the event kinds a filter lets through). The filter
itself stays: a connector need not apply it in full.

A scan used twice (a view read on both sides of a join) with a filter above only one use becomes
two scans: the other use keeps all its rows."""

from __future__ import annotations

from dataclasses import replace

from planner.binder.joins import conjuncts
from planner.logical.operators import Calc, Node, Scan
from planner.logical.visit import transform


def _step(node: Node) -> Node:
    if isinstance(node, Calc) and node.condition is not None and isinstance(node.input, Scan):
        scan = replace(node.input, filters=tuple(conjuncts(node.condition)))
        return replace(node, input=scan)
    return node


def push_filters_into_scans(plan: Node) -> Node:
    return transform(plan, _step)


def push_filters_into_scan_top(node: Node) -> Node:
    """``push_filters_into_scans(node)`` for a node whose inputs had their filters pushed
    already: only the top can be a filter right on a scan that has not."""
    return _step(node)
