"""What Spark can run across operators: a state TTL that alone bounds state, an updating operator
that is not the last stateful step, rows behind the watermark flowing into an updating operator,
and a result that retracts."""

from __future__ import annotations

from collections.abc import Iterable

from planner.check.codes import Code
from planner.check.problem import Problem, problem
from planner.logical.operators import Calc, Deduplicate, GroupAggregate, Join, JoinKind, Node, Sink, TopN, WindowAggregate
from planner.logical.visit import distinct_nodes
from planner.properties import Mode, NodeProps
from planner.state import StateInfo


def ttl_problem(state: Iterable[StateInfo]) -> Problem | None:
    """A state TTL (``table.exec.state.ttl`` or ``STATE_TTL``) that is the only thing bounding an
    operator's state: Spark would keep that state forever and never forget a key, so neither the
    results nor the state would be what the plan says."""
    for info in state:
        if any(p.by_ttl for p in info.parts):
            return problem(Code.STATE_TTL, info.node)
    return None


def _emits_old_rows(node: Node) -> bool:
    """Spark's global-watermark check: below an update-mode operator, an aggregation (windows,
    window Top-N and deduplication run as aggregations) or an outer join may emit rows behind the
    watermark, which Spark refuses. Inner joins and keep-first deduplication emit rows as they come."""
    if isinstance(node, (WindowAggregate, GroupAggregate)):
        return True
    if isinstance(node, (Deduplicate, TopN)):
        return node.window is not None
    if isinstance(node, Join):
        return node.join_kind != JoinKind.INNER
    return False


def chain_problem(plans: Iterable[Node], props: dict[int, NodeProps]) -> Problem | None:
    """Spark runs several stateful operators in one query only in append mode: an operator that
    emits updates (a group aggregation) must be the last stateful one."""
    for node in distinct_nodes(plans):
        if not node.stateful:
            continue
        below = [n for child in node.inputs for n in child.walk() if n.stateful]
        updating = next((n for n in below if not props[n.node_id].changelog.insert_only), None)
        if updating is not None:
            return problem(Code.STATEFUL_AFTER_UPDATING, node, below=updating.kind)
        if props[node.node_id].changelog.insert_only:
            continue
        late = next((n for n in below if _emits_old_rows(n)), None)
        if late is not None:
            return problem(Code.LATE_ROWS_INTO_UPDATING, node, below=late.kind)
    return None


def retracting_root(plan: Node, props: dict[int, NodeProps]) -> Problem | None:
    """A result that retracts rows: Spark's output modes are append and update (by key)."""
    root = plan.input if isinstance(plan, Sink) else plan
    if props[root.node_id].changelog.mode != Mode.RETRACT:
        return None
    node = root
    while isinstance(node, Calc) and props[node.input.node_id].changelog.mode == Mode.RETRACT:
        node = node.input
    if isinstance(node, Calc) and props[node.input.node_id].changelog.mode == Mode.UPSERT:
        key = props[node.input.node_id].changelog.key
        why = f"the key ({', '.join(key)}) of the {node.input.kind} is not among its columns"
    else:
        why = f"{node.kind} emits retractions"
    return problem(Code.ROOT_RETRACTS, root, why=why)
