"""Rebuilding plan trees bottom-up (plans are frozen; a rewrite returns new nodes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from planner.logical.operators import Join, Node, Union, Unary


def with_inputs(node: Node, inputs: list[Node]) -> Node:
    if isinstance(node, Join):
        return replace(node, left=inputs[0], right=inputs[1])
    if isinstance(node, Union):
        return replace(node, children=tuple(inputs))
    if isinstance(node, Unary):
        return replace(node, input=inputs[0])
    return node


def transform(node: Node, fn: Callable[[Node], Node]) -> Node:
    """Apply ``fn`` to every node, children first."""
    new_inputs = [transform(child, fn) for child in node.inputs]
    if any(a is not b for a, b in zip(new_inputs, node.inputs)):
        node = with_inputs(node, new_inputs)
    return fn(node)
