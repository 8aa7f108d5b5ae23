"""What makes the right side of an event-time temporal join a versioned table, as Flink decides it:
a primary key (a table's declared PRIMARY KEY, or the upsert key of an updating input such as an
upsert source or a keep-last deduplication on its event time, Flink's versioned view) and an
event-time attribute, the time each version is valid from. The checker refuses a temporal join
without them; the translator reads the key and the time from here."""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from planner.analysis.properties import NodeProps
from planner.logical.changelog import Mode
from planner.logical.fields import TimeKind
from planner.logical.operators import Calc, Deduplicate, Node, Scan


@dataclass(frozen=True)
class Versioned:
    key: tuple[str, ...]  # the versioned side's primary key, by its field names (empty: none)
    time: str | None  # its event-time attribute: when each version becomes valid (None: none)
    # a versioned view's keep-last deduplication on event time: every row of its input is a
    # version (batch mode reads them all; a streaming run gets them as the upserts it emits)
    history: Deduplicate | None


def _declared_key(node: Node) -> tuple[str, ...]:
    """A declared PRIMARY KEY reaching ``node`` through projections (renamed as they rename it)."""
    if isinstance(node, Scan):
        pk = tuple(node.table.primary_key or ())
        return pk if pk and all(node.field(k) is not None for k in pk) else ()
    if isinstance(node, Calc):
        below = _declared_key(node.input)
        renamed = {e.name: n for n, e in node.projections if _plain(e)}
        return tuple(renamed[k] for k in below) if below and all(k in renamed for k in below) else ()
    return ()


def _plain(e: exp.Expr) -> bool:
    return isinstance(e, exp.Column)


def history(node: Node) -> Deduplicate | None:
    """The keep-last deduplication on event time a versioned view is (below projections and
    filters), if ``node`` is one."""
    read: set[str] = set()  # what the projections and filters above read
    while isinstance(node, Calc):
        read |= {c.name for _, e in node.projections for c in e.find_all(exp.Column)}
        if node.condition is not None:
            read |= {c.name for c in node.condition.find_all(exp.Column)}
        node = node.input
    if isinstance(node, Deduplicate) and node.keep_last and node.window is None and node.rank_field not in read:
        order = node.input.field(node.order_field)
        if order is not None and order.time == TimeKind.ROWTIME:
            return node
    return None


def versioned(right: Node, props: dict[int, NodeProps]) -> Versioned:
    changelog = props[right.node_id].changelog
    key = changelog.key if changelog.mode == Mode.UPSERT and changelog.key else _declared_key(right)
    time = next((f.name for f in right.fields if f.time == TimeKind.ROWTIME), None)
    return Versioned(tuple(key), time, history(right))
