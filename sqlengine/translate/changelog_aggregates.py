"""The aggregations that run as changelog operators (``sqlengine.translate.changelog`` wires
them into Spark): group aggregation, window aggregation (on processing time, or on event time
with a Python aggregate function) and OVER on event or processing time.

Result types are the batch engine's: the output types of the built-in calls are read from the
schema of the native aggregation of the same calls (Spark computes them without running
anything), so a continuous query and batch mode give the same types; a Python aggregate
function's is the type it declares.

In batch mode a node with a Python aggregate function (which Spark's batch aggregation cannot
call either) runs the same operator over each bucket's rows at once (``applyInArrow``), then
fires it at the end of time: the continuous query and batch mode share one implementation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from planner.analysis.physical import Why
from planner.logical.fields import TimeKind, WindowRole
from planner.logical.operators import GroupAggregate, Node, OverAggregate, WindowAggregate
from planner.logical.specs import AggCall, AggFunc, WindowKind
from planner.udf import load
from sqlengine.translate import collection_aggregates
from sqlengine.translate.changelog import _arrow, _arrow_schema, _bucket, _out_schema, on_jvm, operator_rows
from sqlengine.translate.core import Rel, Translator
from sqlengine.translate.event_time import WATERMARK_KEY, watermarked, without_event_time
from sqlengine.translate.expressions import SparkExpressions, agg_sql, quote
from sqlengine.translate.udfs import spark_name
from sqlengine.translate.wall_windows import bounds_zone, wall_millis
from sqlengine.types import spark_type

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType

    from sqlengine.changelog.aggregate import AggCallSpec
    from sqlengine.changelog.operator import Operator

# functions of an OVER window only: no aggregation gives their type
OVER_ONLY = frozenset({AggFunc.ROW_NUMBER, AggFunc.LAG})


def has_user_aggregate(node: Node) -> bool:
    return any(a.udf is not None for a in getattr(node, "aggs", ()))


def result_types(df: DataFrame, exprs: SparkExpressions, keys: list[str], aggs: tuple[AggCall, ...]) -> dict[str, DataType]:
    """The keys' and the calls' types: the built-ins' as Spark's native aggregation of the same
    calls gives them (nothing runs), a Python aggregate function's as it declares."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType

    native = [F.expr(agg_sql(exprs, a)).alias(a.name) for a in aggs if a.udf is None and a.func not in OVER_ONLY]
    types = {f.name: f.dataType for f in df.groupBy(*[F.col(quote(k)) for k in keys]).agg(*native or [F.count(F.lit(1))]).schema.fields}
    for a in aggs:
        if a.udf is not None and a.udf.signature is not None:
            types[a.name] = spark_type(a.udf.signature.result)
        elif a.func == AggFunc.ROW_NUMBER:
            types[a.name] = LongType()
        elif a.func == AggFunc.LAG:  # the value's type
            types[a.name] = df.select(F.expr(exprs.sql(a.args[0]))).schema.fields[0].dataType
    return types


def call_spec(t: Translator, exprs: SparkExpressions, call: AggCall, result: DataType, filtered: bool) -> tuple[list[Column], AggCallSpec]:
    """One call's argument columns and its spec; a Python aggregate function's arguments cast to
    its parameters' types (an INT column given to an ``int`` parameter arrives as a BIGINT)."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.aggregate import AggCallSpec
    from sqlengine.changelog.values import Typing

    args = [] if call.star else [F.expr(exprs.sql(a)) for a in call.args]
    typing = Typing.of(_arrow(t, result))
    if call.func == AggFunc.LAG:  # the value and its default; the offset is a literal (planner.analysis.check)
        offset = int(call.args[1].name) if len(call.args) > 1 else 1
        lag_args = [args[0], *(a.cast(result) for a in args[2:3])]
        return lag_args, AggCallSpec(call.func.value, args=len(lag_args), typing=typing, offset=offset)
    sig = call.udf.signature if call.udf is not None else None
    if call.udf is None or sig is None or call.call is None:
        distinct = call.distinct and call.func in (AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG, *collection_aggregates.FUNCTIONS)
        return args, AggCallSpec(call.func.value, distinct, call.star, len(args), filtered, typing, keep_nulls=call.keeps_nulls)
    args = [a if sig.param_type(i) is None else a.cast(spark_type(sig.param_type(i) or "")) for i, a in enumerate(args)]
    cls = load(sig.target, ())
    assert isinstance(cls, type), "an aggregate function's signature is read from its class"
    spec = AggCallSpec(
        call.func.value, False, False, len(args), filtered, typing,
        function=cls, label=spark_name(call.udf, call.call), name=call.udf.name, result=_arrow(t, result),
    )
    return args, spec


class _Calls:
    """The payload of an aggregation by keys: its columns by position (c0, c1, ...; a key and
    arguments may be the same column, GROUP BY price ... MAX(price), MIN(price), and Arrow refuses
    a struct with repeated names), each call's spec, and the result types."""

    def __init__(self, t: Translator, node: GroupAggregate | WindowAggregate, df: DataFrame) -> None:
        from pyspark.sql import functions as F

        exprs = t.exprs(node)
        self.types = result_types(df, exprs, list(node.keys), node.aggs)
        self.cols: list[Column] = [F.col(quote(k)).alias(f"c{i}") for i, k in enumerate(node.keys)]
        self.specs: list[AggCallSpec] = []
        self.positions: list[int | None] = []
        for call in node.aggs:
            args, spec = call_spec(t, exprs, call, self.types[call.name], call.filter is not None)
            self.positions.append(len(self.cols) if args else None)
            self.cols += [a.alias(f"c{len(self.cols) + i}") for i, a in enumerate(args)]
            if call.filter is not None:
                self.cols.append(F.expr(exprs.sql(call.filter)).alias(f"c{len(self.cols)}"))
            self.specs.append(spec)

    def arg_types(self, t: Translator, payload: DataFrame, inserted: int = 0) -> list[pa.DataType | None]:
        """Per call, its first argument's Arrow type (``payload``: bucket, kind, then the columns,
        with ``inserted`` more columns between the keys and the arguments)."""
        return [_arrow(t, payload.schema.fields[2 + inserted + i].dataType) if i is not None else None for i in self.positions]


def translate_changelog_aggregate(t: Translator, node: GroupAggregate) -> Rel:
    from pyspark.sql import functions as F

    from sqlengine.changelog.aggregate import GroupAggregate as Op

    rel = t.translate(node.input)
    df = without_event_time(rel.df)
    calls = _Calls(t, node, df)
    types, specs = calls.types, calls.specs
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.keys]), rel.kind_column(), *calls.cols)
    if not t.streaming and not node.keys:
        payload = _with_empty_group(t, payload)
    arg_types = calls.arg_types(t, payload)
    kind = t.fresh("kind")
    out_fields = [(k, types[k]) for k in node.keys] + [(a.name, types[a.name]) for a in node.aggs]
    out = _out_schema(t, kind, out_fields)
    updating = not t.props[node.input.node_id].changelog.insert_only or rel.kind is not None
    op = Op(len(node.keys), specs, arg_types, updating, _arrow_schema(t, out), node.state_ttl(t.ttl_ms) if t.streaming else None)
    physical = t.physical.get(node.node_id)
    if physical is not None and physical.jvm:  # (a streaming query's only: batch mode has no changelog operators)
        result = on_jvm(t, node, payload.select(*payload.columns[1:]), op, out)  # (without the bucket)
    else:
        result = operator_rows(t, node, payload, op, out)
    names = tuple(node.field_names())
    if not t.streaming:  # every row is final
        return Rel(result.select(*[F.col(quote(n)) for n in names]), names)
    return Rel(result.select(*[F.col(quote(n)) for n in names], F.col(kind)), names, kind=kind)


def _with_empty_group(t: Translator, payload: DataFrame) -> DataFrame:
    """A batch aggregation without GROUP BY has one row even over no input (COUNT(*) = 0): a
    marker row without a kind makes its one bucket run (``whole_bucket`` drops it), and the
    operator emits the group's initial values at the end of the input."""
    from pyspark.sql import functions as F

    marker = t.spark.range(1).select(
        F.lit(0).cast("int").alias("b"), F.lit(None).cast("tinyint").alias(payload.columns[1]),
        *[F.lit(None).cast(f.dataType).alias(f.name) for f in payload.schema.fields[2:]],
    )
    return payload.unionByName(marker)


def translate_changelog_window_aggregate(t: Translator, node: WindowAggregate) -> Rel:
    """TUMBLE, HOP, CUMULATE and SESSION on processing time (the operator counts each row in the
    windows of its processing time and emits each window when the wall clock passes its end), or
    on event time (emitted when the watermark passes the end; sessions merge): with a Python
    aggregate function, sessions on the wall clock of a zone with daylight saving time, a window
    on a MATCH_RECOGNIZE's MATCH_ROWTIME() or an OVER's time (``chained``: their rows come as the
    watermark passes them)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, TimestampType

    from sqlengine.changelog.window_aggregate import WindowAggregate as Op

    rel = t.translate(node.input)
    event_time = not node.on_proctime
    # event time: the watermark stays on the input (Spark's timers need it; late rows are the
    # operator's to drop)
    df = rel.df if event_time else without_event_time(rel.df)
    calls = _Calls(t, node, df)
    w = node.window
    # after a window TVF each row comes once per window it is in, with the window's bounds; a
    # GROUP BY TUMBLE(ts, ..) gives the operator the row's time to assign
    bounds = {f.window.role: f.name for f in node.input.fields if f.window is not None and f.window.window_id == w.id}
    # (a SESSION table function's bounds exist only after the aggregation: the operator makes them)
    given = WindowRole.START in bounds and WindowRole.END in bounds and w.kind != WindowKind.SESSION
    # on a TIMESTAMP_LTZ in a zone the operator works on the zone's wall clock, as Flink does (the
    # window TVF's bounds are wall times already)
    zone = bounds_zone(t, node, w)
    time = F.col(quote(w.time_field))
    window_cols = ([F.unix_millis(F.col(quote(bounds[WindowRole.START]))), F.unix_millis(F.col(quote(bounds[WindowRole.END])))] if given
                   else [wall_millis(time, zone) if zone else F.unix_millis(time)])
    n_keys = len(node.keys)
    cols = calls.cols[:n_keys] + [c.alias(t.fresh("w")) for c in window_cols] + calls.cols[n_keys:]
    mark = watermarked(df) if event_time and t.streaming else []
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.keys]), rel.kind_column(), *cols, *mark)
    kind = t.fresh("kind")
    window_names = [f.name for f in node.fields[n_keys : n_keys + 3]]
    out_fields = ([(k, calls.types[k]) for k in node.keys] + [(n, TimestampType()) for n in window_names]
                  + [(a.name, calls.types[a.name]) for a in node.aggs])
    out = _out_schema(t, kind, out_fields)
    slide = {WindowKind.HOP: w.slide_ms, WindowKind.CUMULATE: w.step_ms, WindowKind.SESSION: w.gap_ms}.get(w.kind, w.size_ms)
    op = Op(w.kind.value, w.size_ms or 0, slide or 0, w.offset_ms, n_keys, calls.specs, calls.arg_types(t, payload, len(window_cols)),
            _arrow_schema(t, out), given, event_time, zone, chained=event_time and _after_release(t, node))
    # processing-time timers close windows on an idle source; a bounded job has none (see the operator)
    op.timers = not event_time and not t.bounded
    names = tuple(node.field_names())
    physical = t.physical.get(node.node_id)
    if physical is not None and physical.jvm:  # WindowAgg.java: the bounds and time come as milliseconds
        millis = _out_schema(t, kind, [(n, LongType()) if n in window_names else (n, dt) for n, dt in out_fields])
        result = on_jvm(t, node, payload.select(*payload.columns[1:]), op, millis)  # (without the bucket)
        return Rel(result.select(*[F.timestamp_millis(F.col(quote(n))).alias(n) if n in window_names else F.col(quote(n))
                                   for n in names]), names)
    result = operator_rows(t, node, payload, op, out)
    return Rel(result.select(*[F.col(quote(n)) for n in names]), names)


def _after_release(t: Translator, node: Node) -> bool:
    """An event-time window the planner put after a changelog operator: after a MATCH_RECOGNIZE
    or an OVER on event time (planner.analysis.physical.after_release), whose rows come as the
    watermark passes them."""
    p = t.physical.get(node.node_id)
    return p is not None and p.why == Why.AFTER_CHANGELOG


# -- OVER aggregation on event time ----------------------------------------------------------


@dataclass
class OverPayload:
    """An OVER aggregation's input as its changelog operator reads it: the bucket, the row kind,
    one column of the operator's own (``first``), the input row, then each call's arguments."""

    payload: DataFrame
    in_names: list[str]
    in_types: list[pa.DataType]
    specs: list[AggCallSpec]
    arg_types: list[pa.DataType | None]
    kind: str  # the output's row kind column
    out: StructType  # the kind, then the input row and the aggregates
    order_mark: dict[str, Any]  # the metadata of the order's column: Spark's watermark mark, if it has one


def over_payload(t: Translator, node: OverAggregate, first: Column) -> OverPayload:
    from pyspark.sql import functions as F

    rel = t.translate(node.input)
    df = rel.df
    in_names = list(rel.columns)
    exprs = t.exprs(node)
    types = result_types(df, exprs, [], node.aggs)
    cols: list[Column] = [first.alias("c0")]
    cols += [F.col(quote(c)).alias(f"c{1 + i}") for i, c in enumerate(in_names)]
    specs, positions = [], []
    for call in node.aggs:
        args, spec = call_spec(t, exprs, call, types[call.name], False)
        positions.append(len(cols) if args else None)
        cols += [a.alias(f"c{len(cols) + i}") for i, a in enumerate(args)]
        specs.append(spec)
    # the watermark stays on the input: Spark's timers need it (the operator drops late rows itself)
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.partition_keys]), rel.kind_column(), *cols)
    arg_types = [_arrow(t, payload.schema.fields[2 + i].dataType) if i is not None else None for i in positions]
    kind = t.fresh("kind")
    fields = [(c, df.schema[c].dataType) for c in in_names] + [(a.name, types[a.name]) for a in node.aggs]
    in_types = [_arrow(t, df.schema[c].dataType) for c in in_names]
    mark = dict(df.schema[node.order_field].metadata) if node.order_field in df.columns else {}
    return OverPayload(payload, in_names, in_types, specs, arg_types, kind, _out_schema(t, kind, fields), mark)


def over_result(t: Translator, node: OverAggregate, p: OverPayload, op: Operator) -> Rel:
    from pyspark.sql import functions as F

    result = operator_rows(t, node, p.payload, op, p.out)
    names = tuple(node.field_names())
    if not t.streaming:
        return Rel(result.select(*[F.col(quote(n)) for n in names]), names)
    # on event time the order's time keeps Spark's watermark mark: each row comes out once the
    # watermark passes it, so an event-time operator can follow (planner.analysis.physical.after_release)
    marked = node.order_field if WATERMARK_KEY in p.order_mark and node.waits_on_watermark() else None
    cols = [F.col(quote(n)).alias(n, metadata=p.order_mark) if n == marked else F.col(quote(n)) for n in names]
    return Rel(result.select(*cols, F.col(p.kind)), names, kind=p.kind)


def translate_changelog_over(t: Translator, node: OverAggregate) -> Rel:
    from pyspark.sql import functions as F

    from sqlengine.changelog.over import OverAggregate as Op

    p = over_payload(t, node, F.unix_millis(F.col(quote(node.order_field))))
    order = node.input.field(node.order_field)
    op = Op(
        [p.in_names.index(k) for k in node.partition_keys], len(p.in_names), node.rows, node.preceding, p.specs,
        p.arg_types, _arrow_schema(t, p.out), node.state_ttl(t.ttl_ms) if t.streaming else None,
        processing=order is not None and order.time == TimeKind.PROCTIME,
    )
    return over_result(t, node, p, op)
