"""OVER aggregations of a SELECT: the one window all its OVER calls share, its partition keys
(computed under hidden names when they are expressions) and its frame."""

from __future__ import annotations

from sqlglot import exp

from planner.binder.base import BinderBase
from planner.binder.expressions import Collector, ExprBinder, col
from planner.binder.types import user_result_type
from planner.logical.fields import Field
from planner.logical.operators import Calc, Node, OverAggregate
from planner.logical.specs import AggCall, AggFunc
from planner.problems import BindError

# functions that take no frame (their window's rows in order are the frame)
FRAMELESS = frozenset({AggFunc.ROW_NUMBER, AggFunc.RANK, AggFunc.DENSE_RANK, AggFunc.PERCENT_RANK, AggFunc.CUME_DIST,
                       AggFunc.NTILE, AggFunc.LAG, AggFunc.LEAD})


class OverMixin(BinderBase):
    """Mixed into Binder (through SelectMixin)."""

    def _over(self, node: Node, binder: ExprBinder, collector: Collector) -> tuple[Node, ExprBinder]:
        first = collector.overs[0]
        for o in collector.overs:  # Calcite's rule, Flink's message
            if o.func in FRAMELESS and o.frame is not None:
                raise BindError("ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions", o.node)
        for other in collector.overs[1:]:
            if (other.partition, other.order, other.frame) != (first.partition, first.order, first.frame):
                raise BindError("All OVER windows of one SELECT must be the same window", other.node)
        partition_keys = []
        pre_proj: list[tuple[str, exp.Expr]] = [(f.name, col(f.name)) for f in node.fields]
        for i, p in enumerate(first.partition):
            if isinstance(p, exp.Column):
                partition_keys.append(p.name)
            else:
                pre_proj.append((f"$part{i}", p))
                partition_keys.append(f"$part{i}")
        if len(pre_proj) > len(node.fields):
            extra = [binder.field_of(n, e) for n, e in pre_proj[len(node.fields):]]
            node = Calc(tuple(list(node.fields) + extra), input=node, projections=tuple(pre_proj))
            for f in extra:
                binder.scope.by_internal[f.name] = f
        if not first.order:
            raise BindError("An OVER window in a streaming query needs ORDER BY a time attribute", first.node)
        order_expr, _desc = first.order[0]
        order_name = order_expr.name if isinstance(order_expr, exp.Column) else ""
        rows, preceding = _frame(first.frame, first.node)
        if all(o.func == AggFunc.ROW_NUMBER for o in collector.overs):
            rows = True  # numbered one row after another, ties too: Flink's ROWS frame for it
        aggs = tuple(
            AggCall(name=o.name, func=o.func, args=o.args, distinct=o.distinct, udf=o.udf, call=o.node.this if o.udf else None, nulls=o.nulls) for o in collector.overs
        )
        over_fields = [Field(a.name, agg_type(binder, a)) for a in aggs]
        over = OverAggregate(
            tuple(list(node.fields) + over_fields),
            input=node,
            partition_keys=tuple(partition_keys),
            order_field=order_name,
            order=tuple((e.name if isinstance(e, exp.Column) else e.sql(), d) for e, d in first.order),
            rows=rows,
            preceding=preceding,
            aggs=aggs,
            origin=first.node,
        )
        for f in over_fields:
            binder.scope.by_internal[f.name] = f
        return over, binder


def agg_type(binder: ExprBinder, agg: AggCall) -> exp.DataType:
    from planner.logical import typing as T

    if agg.udf is not None:
        return user_result_type(agg.udf)
    if agg.func in ("ROW_NUMBER", "RANK", "DENSE_RANK", "COUNT"):
        return T.BIGINT
    arg = binder.type_of(agg.args[0]) if agg.args else None
    return T.agg_type(agg.func, arg)


def _frame(spec: exp.Expr | None, node: exp.Expr) -> tuple[bool, int | None]:
    """(ROWS?, preceding) of an OVER frame; default RANGE UNBOUNDED PRECEDING."""
    from planner.binder.intervals import interval_ms, is_interval

    if spec is None:
        return False, None
    rows = spec.text("kind").upper() == "ROWS"
    start = spec.args.get("start")
    end_arg = spec.args.get("end")
    end = end_arg.upper() if isinstance(end_arg, str) else (end_arg.name.upper() if end_arg is not None else "CURRENT ROW")
    if end not in ("CURRENT ROW", ""):
        raise BindError("A streaming OVER window must end at CURRENT ROW", node)
    if isinstance(start, str):
        start_text = start.upper()
    elif start is None:
        start_text = "UNBOUNDED"
    else:
        start_text = ""
    if start_text == "UNBOUNDED":
        return rows, None
    if start_text == "CURRENT ROW":
        return rows, 0
    if rows and isinstance(start, exp.Expr):
        try:
            return True, int(start.name)
        except (AttributeError, ValueError):
            raise BindError("ROWS BETWEEN takes a number of rows", node) from None
    if isinstance(start, exp.Expr) and is_interval(start):
        return False, interval_ms(start)
    raise BindError("RANGE BETWEEN takes an interval, e.g. INTERVAL '1' HOUR PRECEDING", node)
