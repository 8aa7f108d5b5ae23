"""Walking and rebuilding plan trees (plans are frozen; a rewrite returns new nodes)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from planner.logical.joins import Join
from planner.logical.operators import Node, Unary, Union


def input_kwargs(node: Node, inputs: list[Node]) -> dict[str, Any]:
    """The constructor arguments that set ``node``'s inputs to ``inputs``."""
    if isinstance(node, Join):
        return {"left": inputs[0], "right": inputs[1]}
    if isinstance(node, Union):
        return {"children": tuple(inputs)}
    if isinstance(node, Unary):
        return {"input": inputs[0]}
    return {}


def with_inputs(node: Node, inputs: list[Node]) -> Node:
    kwargs = input_kwargs(node, inputs)
    return replace(node, **kwargs) if kwargs else node


def transform(node: Node, fn: Callable[[Node], Node]) -> Node:
    """Apply ``fn`` to every node, children first."""
    new_inputs = [transform(child, fn) for child in node.inputs]
    if any(a is not b for a, b in zip(new_inputs, node.inputs, strict=True)):
        node = with_inputs(node, new_inputs)
    return fn(node)


def distinct_nodes(plans: Iterable[Node]) -> list[Node]:
    """Every node of the plans once, pre-order: a subtree a plan uses twice (a view read by both
    sides of a join) is one node with one id, listed at its first use."""
    seen: set[int] = set()
    out: list[Node] = []
    stack: list[Node] = list(reversed(list(plans)))
    while stack:
        node = stack.pop()
        if node.node_id in seen:
            continue
        seen.add(node.node_id)
        out.append(node)
        stack.extend(reversed(node.inputs))
    return out
