"""Stable node ids: once the binder has the final plans of a statement, each distinct node gets
an id, in pre-order over the plans (n0 is the first plan's root). Side tables (properties, state,
estimates, diagnostics, the translator's cache) are keyed by it. A subtree a plan uses twice (a
view or CTE read on both sides of a join) is one node object and keeps one id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from planner.logical.operators import Node
from planner.logical.visit import input_kwargs


def number(plans: Sequence[Node]) -> list[Node]:
    """The same plans with ``node_id`` set on every node."""
    order: dict[int, int] = {}  # id(object) -> node id
    stack: list[Node] = list(reversed(plans))
    while stack:
        node = stack.pop()
        if id(node) in order:
            continue
        order[id(node)] = len(order)
        stack.extend(reversed(node.inputs))
    built: dict[int, Node] = {}

    def rebuild(node: Node) -> Node:
        key = id(node)
        done = built.get(key)
        if done is None:
            inputs = [rebuild(child) for child in node.inputs]
            done = replace(node, node_id=order[key], **input_kwargs(node, inputs))
            built[key] = done
        return done

    return [rebuild(p) for p in plans]
