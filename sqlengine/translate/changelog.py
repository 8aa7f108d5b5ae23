"""Changelog operators on Spark: where the planner decided an operator runs as one
(``planner.analysis.physical``), its input rows (with their kind) are hashed into buckets by the
operator's key, packed per bucket (``sqlengine.changelog.wire``), handed to its processor on
``transformWithStateInPandas`` (``sqlengine.changelog.processor``), and its changes unpacked into
rows that carry their kind onwards. The operator's logic is plain Python
(``sqlengine.changelog.aggregate``, ``topn``, ``dedup``, ``join``); this module builds it from the
plan and wires it into the DataFrame.

Result types are the batch engine's: an aggregate's output types are read from the schema of the
native aggregation of the same calls (Spark computes them without running anything), so a
continuous query and batch mode give the same types, and the Python code the same values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from planner.analysis.versioned import versioned
from planner.logical.changelog import Mode
from planner.logical.evaluate import compile_expression, interval_residual, one_sided_residual, residual_condition
from planner.logical.joins import IntervalJoin, Join, JoinKind, TemporalJoin
from planner.logical.operators import ChangelogNormalize, Deduplicate, Node, Sort, TopN
from planner.problems import PlanningError
from planner.time_zone import fixed_offset_ms
from sqlengine.translate.core import Rel, Translator, unreachable
from sqlengine.translate.event_time import without_event_time
from sqlengine.translate.expressions import quote

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import DataType, StructType
    from sqlglot import exp

    from sqlengine.changelog.operator import Operator


# -- the Spark side of every changelog operator ------------------------------------------------


def _arrow(t: Translator, spark_type: DataType) -> pa.DataType:
    from pyspark.sql.pandas.types import to_arrow_type

    return to_arrow_type(spark_type, timezone=t.spark.conf.get("spark.sql.session.timeZone") or "UTC")


def _arrow_schema(t: Translator, schema: StructType) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema, timezone=t.spark.conf.get("spark.sql.session.timeZone") or "UTC")


def _bucket(t: Translator, keys: list[Column]) -> Column:
    from pyspark.sql import functions as F

    if not keys:
        return F.lit(0).alias("b")  # one group: one bucket
    return F.pmod(F.hash(*keys), F.lit(t.buckets)).cast("int").alias("b")


def _packed(df: DataFrame, side: int = 0) -> DataFrame:
    from pyspark.sql import functions as F

    from sqlengine.changelog.wire import PACKED, pack

    return df.mapInArrow(pack, PACKED).withColumn("side", F.lit(side))


def _run(t: Translator, node: Node, packed: DataFrame, op: Operator, out: StructType) -> DataFrame:
    """The operator's output rows: its kind column first, then its fields (``out``)."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.processor import BucketProcessor
    from sqlengine.changelog.wire import OUT, unpack
    from sqlengine.progress import CHANGELOG_BYTES, CHANGELOG_METRIC

    t.changelog_operators += 1
    # a timed operator (OVER) holds rows until Spark's watermark passes them: its buckets get
    # event-time timers; a processing-time window's get processing-time timers
    if op.timers:
        t.processing_timers = True
    mode = "EventTime" if op.timed else "ProcessingTime" if op.timers else "None"
    changes = packed.groupBy("b").transformWithStateInPandas(
        statefulProcessor=BucketProcessor(op), outputStructType=OUT, outputMode="Append", timeMode=mode,
    )
    # Spark counts this operator's state in buckets, and its bytes as RocksDB's memory; the keys
    # and the stored bytes it gained per micro-batch reach the job's progress as observed metrics
    # (sqlengine.progress.ChangelogKeys sums them)
    observed = changes.observe(
        f"{CHANGELOG_METRIC}{node.node_id}", F.coalesce(F.sum("keys"), F.lit(0)).alias("keys"),
    ).observe(f"{CHANGELOG_BYTES}{node.node_id}", F.coalesce(F.sum("bytes"), F.lit(0)).alias("bytes"))
    return observed.mapInArrow(unpack, out)


def operator_rows(t: Translator, node: Node, payload: DataFrame, op: Operator, out: StructType) -> DataFrame:
    """The operator's output (its kind column first): streaming, on ``transformWithState``; in
    batch mode over each bucket's rows at once, then the end of time."""
    if t.streaming:
        return _run(t, node, _packed(payload), op, out)
    return payload.groupBy("b").applyInArrow(whole_bucket(op), out)


def whole_bucket(op: Operator):  # type: ignore[no-untyped-def]
    """``applyInArrow``: one bucket's rows through the operator, then its watermark to the end
    (a row without a kind is a marker that only makes its bucket run: ``_with_empty_group``)."""
    import pyarrow.compute as pc

    from sqlengine.changelog.operator import END_OF_TIME_MS

    def run(table: pa.Table) -> pa.Table:
        import time

        now = int(time.time() * 1000)
        state = op.new_state()
        rows = table.drop_columns(["b"])
        changes = op.apply(state, [rows.filter(pc.is_valid(rows.column(0)))], now)
        # what waits for the watermark or the clock comes out: the input has ended
        fired = op.fire(state, END_OF_TIME_MS, now) if op.timed or op.clock == "processing" else None
        for more in (fired, op.end_of_input(state)):
            if more is not None:
                changes.kinds += more.kinds
                changes.rows += more.rows
        return changes.table(op.out_schema)

    return run


def _out_schema(t: Translator, kind: str, fields: list[tuple[str, DataType]]) -> StructType:
    from pyspark.sql.types import ByteType, StructField, StructType

    return StructType([StructField(kind, ByteType(), False), *[StructField(n, dt, True) for n, dt in fields]])


# -- rankings: Top-N, ORDER BY ... LIMIT, deduplication over changes ----------------------------


def translate_changelog_rank(t: Translator, node: TopN | Deduplicate | Sort) -> Rel:
    from pyspark.sql import functions as F

    from sqlengine.changelog.topn import TopN as Op

    rel = t.translate(node.input)
    df = without_event_time(rel.df)
    in_names = list(rel.columns)
    physical = t.physical[node.node_id]
    if isinstance(node, TopN):
        keys, order, n, function, rank_field = node.partition_keys, node.order, node.n, node.rank_func.value, node.rank_field
    elif isinstance(node, Deduplicate):
        keys, order, n, function, rank_field = node.keys, ((node.order_field, node.keep_last),), 1, "ROW_NUMBER", node.rank_field
    else:
        assert node.limit is not None
        keys, order, n, function, rank_field = (), node.order, node.limit, "ROW_NUMBER", None
    row_types = [_arrow(t, df.schema[c].dataType) for c in in_names]
    fields, rank_position = _ranked_fields(node, df, in_names, rank_field)
    upstream = t.props[node.input.node_id].changelog
    row_key = [in_names.index(k) for k in upstream.key] if upstream.mode == Mode.UPSERT else []
    kind = t.fresh("kind")
    out = _out_schema(t, kind, fields)
    op = Op(
        [in_names.index(k) for k in keys], [(in_names.index(c), desc) for c, desc in order], row_types, n,
        _arrow_schema(t, out), function=function, rank_position=rank_position,
        strategy=(physical.strategy.value if physical.strategy else "RetractStrategy"), row_key=row_key, ttl_ms=node.state_ttl(t.ttl_ms),
    )
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in keys]), rel.kind_column(), *[F.col(quote(c)) for c in in_names])
    result = _keyed(t, node, payload, op, out)
    names = tuple(f[0] for f in fields)
    if names != tuple(node.field_names()):
        raise unreachable(node, f"a ranking whose fields {node.field_names()} are not its input's {names}")
    return Rel(result, names, kind=kind)


def _keyed(t: Translator, node: Node, payload: DataFrame, op: Operator, out: StructType) -> DataFrame:
    """A keyed operator over ``payload`` (its bucket, the kind, then its columns): its JVM twin
    (without the bucket) where the planner put it, else the Python one."""
    if t.physical[node.node_id].jvm:
        return on_jvm(t, node, payload.select(*payload.columns[1:]), op, out)
    return _run(t, node, _packed(payload), op, out)


def on_jvm(t: Translator, node: Node, payload: DataFrame, op: Operator, out: StructType) -> DataFrame:
    """The operator's JVM twin (``sqlengine/jvm/TopN.java``, ``Dedup.java``, ``GroupAgg.java``,
    ``WindowAgg.java``) over ``payload`` (the kind, then its columns), set up as the Python
    operator ``op``."""
    from sqlengine.changelog.aggregate import GroupAggregate
    from sqlengine.changelog.dedup import Deduplicate as Dedup
    from sqlengine.changelog.window_aggregate import WindowAggregate
    from sqlengine.jvm import BuildFailed
    from sqlengine.jvm.spark import deduplicate, group_aggregate, top_n, window_aggregate

    try:
        if isinstance(op, GroupAggregate):
            return group_aggregate(t.spark, payload, op, out, t.ttl_timeouts(node))
        if isinstance(op, WindowAggregate):
            offset = fixed_offset_ms(op.zone) if op.zone else 0
            if op.event_time or op.merging or offset is None:  # the planner keeps these in Python
                raise unreachable(node, "a window aggregation on event time or on a zone with daylight saving time planned on the JVM")
            if op.timers:  # Spark's processing-time timeouts: batches run without input (as the Python one's timers)
                t.processing_timers = True
            return window_aggregate(t.spark, payload, op, out, offset, op.timers)
        from sqlengine.changelog.topn import TopN as Op

        timeouts = t.ttl_timeouts(node)
        if isinstance(op, Dedup):
            return deduplicate(t.spark, payload, op, out, timeouts)
        assert isinstance(op, Op)
        return top_n(t.spark, payload, op, out, timeouts)
    except BuildFailed as err:
        raise PlanningError(str(err), node.origin) from None


def _ranked_fields(
    node: Node, df: DataFrame, in_names: list[str], rank_field: str | None
) -> tuple[list[tuple[str, DataType]], int | None]:
    """A ranking's output fields: its input's, with the rank number (BIGINT) where the node's
    fields have it; and that position (None: no rank column)."""
    from pyspark.sql.types import LongType

    fields: list[tuple[str, DataType]] = [(c, df.schema[c].dataType) for c in in_names]
    if not rank_field:
        return fields, None
    position = [f.name for f in node.fields].index(rank_field)
    fields.insert(position, (rank_field, LongType()))
    return fields, position


def translate_changelog_dedup(t: Translator, node: Deduplicate) -> Rel:
    """A deduplication of an insert-only input (over changes it is a ranking, as in Flink)."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.dedup import Deduplicate as Op

    if t.physical[node.node_id].strategy is not None:
        return translate_changelog_rank(t, node)
    rel = t.translate(node.input)
    df = without_event_time(rel.df)
    in_names = list(rel.columns)
    row_types = [_arrow(t, df.schema[c].dataType) for c in in_names]
    fields, rank_position = _ranked_fields(node, df, in_names, node.rank_field)
    kind = t.fresh("kind")
    out = _out_schema(t, kind, fields)
    op = Op(
        [in_names.index(k) for k in node.keys], in_names.index(node.order_field), row_types, _arrow_schema(t, out),
        keep_last=node.keep_last, on_proctime=node.on_proctime, rank_position=rank_position, ttl_ms=node.state_ttl(t.ttl_ms),
        every_change=t.physical[node.node_id].every_change,
    )
    # processing time: the row's arrival is its position, the column's value is not compared
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.keys]), rel.kind_column(), *[F.col(quote(c)) for c in in_names])
    result = _keyed(t, node, payload, op, out)
    names = tuple(f[0] for f in fields)
    return Rel(result, names, kind=kind)


def translate_changelog_normalize(t: Translator, node: ChangelogNormalize) -> Rel:
    """The records of an upsert source (kind 0 upsert, 3 delete) made into a changelog."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.normalize import ChangelogNormalize as Op

    rel = t.translate(node.input)
    df = without_event_time(rel.df)
    in_names = list(rel.columns)
    fields = [(c, df.schema[c].dataType) for c in in_names]
    kind = t.fresh("kind")
    out = _out_schema(t, kind, fields)
    op = Op([in_names.index(k) for k in node.keys], _arrow_schema(t, out), ttl_ms=node.state_ttl(t.ttl_ms))
    payload = df.select(_bucket(t, [F.col(quote(k)) for k in node.keys]), rel.kind_column(), *[F.col(quote(c)) for c in in_names])
    result = _run(t, node, _packed(payload), op, out)
    return Rel(result, tuple(in_names), kind=kind)


# -- joins ---------------------------------------------------------------------------------------


def _key_cols(df: DataFrame, rel: Rel, idx: list[int], other: DataFrame, other_rel: Rel, other_idx: list[int]) -> list[Column]:
    """A join side's key columns to hash: numbers of different types as DOUBLE, so that equal
    values land in the same bucket on both sides (1 and 1.00 hash alike)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import NumericType

    out = []
    for i, j in zip(idx, other_idx, strict=True):
        a, b = df.schema[rel.columns[i]].dataType, other.schema[other_rel.columns[j]].dataType
        col = F.col(quote(rel.columns[i]))
        out.append(col.cast("double") if a != b and isinstance(a, NumericType) and isinstance(b, NumericType) else col)
    return out


def _sides(t: Translator, node: Join) -> tuple[list[str], Rel, Rel, DataFrame, DataFrame]:
    """A join's output names, its two sides translated, and their rows with no event-time mark
    (a changelog join keeps rows by its own rules, not Spark's watermark)."""
    left, right = t.translate(node.left), t.translate(node.right)
    return list(node.field_names()), left, right, without_event_time(left.df), without_event_time(right.df)


def translate_changelog_join(t: Translator, node: Join) -> Rel:
    from pyspark.sql import functions as F

    from sqlengine.changelog.join import Join as Op

    names, left, right, ldf, rdf = _sides(t, node)
    lnames, rnames = names[: len(node.left.fields)], names[len(node.left.fields) :]
    lkeys = [lnames.index(a) for a, _ in node.equi_keys]
    rkeys = [rnames.index(b) for _, b in node.equi_keys]

    residual = residual_condition(node)
    on_jvm = t.physical[node.node_id].jvm
    # (on the JVM an inner join's further condition filters its output, in Spark)
    predicate = compile_expression(residual, names) if residual is not None and not on_jvm else None
    kind = t.fresh("kind")
    semi = node.join_kind in (JoinKind.SEMI, JoinKind.ANTI)
    fields = [(n, ldf.schema[c].dataType) for n, c in zip(lnames, left.columns, strict=True)]
    if not semi:
        fields += [(n, rdf.schema[c].dataType) for n, c in zip(rnames, right.columns, strict=True)]
    out = _out_schema(t, kind, fields)
    op = Op(
        node.join_kind.value, lkeys, rkeys, len(lnames), len(rnames), _arrow_schema(t, out),
        counted=t.physical[node.node_id].counted, residual=predicate, ttl_ms=(node.state_ttl(t.ttl_ms, 0), node.state_ttl(t.ttl_ms, 1)),
    )
    if on_jvm:
        *one_sided, both = one_sided_residual(node, residual)
        # a condition on both sides' fields: an inner join's filters its output (Spark's codegen,
        # batch-wide); another kind's decides per pair whether a row has a match, in Join.java
        inner = node.join_kind == JoinKind.INNER
        both_sql = t.join_exprs(node).sql(both) if both is not None else None
        result = _join_on_jvm(t, node, op, out, (left, right), (ldf, rdf), (lkeys, rkeys), (one_sided[0], one_sided[1]), None if inner else both_sql)
        if both_sql is not None and inner:
            result = result.filter(F.expr(both_sql))
    else:
        lpay = ldf.select(_bucket(t, _key_cols(ldf, left, lkeys, rdf, right, rkeys)), left.kind_column(), *[F.col(quote(c)) for c in left.columns])
        rpay = rdf.select(_bucket(t, _key_cols(rdf, right, rkeys, ldf, left, lkeys)), right.kind_column(), *[F.col(quote(c)) for c in right.columns])
        result = _run(t, node, _packed(lpay, 0).unionByName(_packed(rpay, 1)), op, out)
    return Rel(result, tuple(n for n, _ in fields), kind=kind)


def _join_on_jvm(t: Translator, node: Join, op: Operator, out: StructType, rels: tuple[Rel, Rel],
                 dfs: tuple[DataFrame, DataFrame], keys: tuple[list[int], list[int]],
                 conditions: tuple[exp.Expr | None, exp.Expr | None], pairs: str | None) -> DataFrame:
    """``Join.java`` over both sides' rows in one input: the kind, the side, the join key (the
    right side's cast to the left's types, which the planner made sure are the same), then the
    left fields and the right ones, the other side's NULL. A row that fails its side's part of the
    condition (``conditions``: on that side's fields only) gets a NULL key: it matches nothing.
    ``pairs``: the part on both sides' fields, as Spark SQL, which a pair must meet to match."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.join import Join as Op
    from sqlengine.jvm import BuildFailed
    from sqlengine.jvm.spark import join

    assert isinstance(op, Op)
    # (in a bounded job, without timeouts, a key's expired rows go when it is next touched)
    timeouts = t.ttl_timeouts(node)
    key_types = [dfs[0].schema[rels[0].columns[i]].dataType for i in keys[0]]
    names = node.field_names()
    side_names = (names[: len(node.left.fields)], names[len(node.left.fields) :])
    exprs = t.join_exprs(node)
    payloads = []
    for side, (rel, df) in enumerate(zip(rels, dfs, strict=True)):
        columns = [rel.kind_column().alias("_kind"), F.lit(side).alias("_side")]
        key_cols = [F.col(quote(rel.columns[i])).cast(kt) for i, kt in zip(keys[side], key_types, strict=True)]
        condition = conditions[side]
        if condition is not None:
            # the condition names the side's fields: a copy of each column under its field's name
            df = df.select("*", *[F.col(quote(c)).alias(n) for c, n in zip(rel.columns, side_names[side], strict=True) if c != n])
            ok = F.expr(exprs.sql(condition))
            key_cols = [F.when(ok, k) for k in key_cols]
        columns += [k.alias(f"_k{n}") for n, k in enumerate(key_cols)]
        for s, (r, d) in enumerate(zip(rels, dfs, strict=True)):
            columns += [(F.col(quote(c)) if s == side else F.lit(None).cast(d.schema[c].dataType)).alias(f"_{s}_{n}")
                        for n, c in enumerate(r.columns)]
        payloads.append(df.select(*columns))
    try:
        return join(t.spark, payloads[0].union(payloads[1]), op, len(key_types), out, timeouts, pairs, names)
    except BuildFailed as err:
        raise PlanningError(str(err), node.origin) from None


def translate_changelog_temporal_join(t: Translator, node: TemporalJoin) -> Rel:
    """The event-time temporal join: the left rows with their time, the versions with theirs,
    into one operator with event-time timers (it emits a left row once the watermark, the
    lower of both inputs', passes it)."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.temporal import TemporalJoin as Op

    names = node.field_names()
    n_left = len(node.left.fields)
    left, right = t.translate(node.left), t.translate(node.right)
    lnames, rnames = names[:n_left], names[n_left:]
    lkeys = [lnames.index(a) for a, _ in node.equi_keys]
    rkeys = [rnames.index(b) for _, b in node.equi_keys]
    version_time = versioned(node.right, t.props).time
    if version_time is None:
        raise unreachable(node, "a temporal join against a side without event time")
    times = (left.columns[lnames.index(node.left_time)], right.columns[rnames.index(version_time)])

    def payload(rel: Rel, other: Rel, keys: list[int], other_keys: list[int], time: str) -> DataFrame:
        # the watermark stays on the inputs: Spark's timers need it. Columns by position (c0 the
        # time, then the fields): a user column may have any name, "b" (the bucket) included
        cols = [F.unix_millis(F.col(quote(time))).alias("c0")]
        cols += [F.col(quote(c)).alias(f"c{1 + i}") for i, c in enumerate(rel.columns)]
        return rel.df.select(_bucket(t, _key_cols(rel.df, rel, keys, other.df, other, other_keys)), rel.kind_column(), *cols)

    residual = residual_condition(node)
    on_jvm = t.physical[node.node_id].jvm
    # (on the JVM an inner join's further condition filters its output, in Spark)
    predicate = compile_expression(residual, names) if residual is not None and not on_jvm else None
    kind = t.fresh("kind")
    fields = [(n, left.df.schema[c].dataType) for n, c in zip(lnames, left.columns, strict=True)]
    fields += [(n, right.df.schema[c].dataType) for n, c in zip(rnames, right.columns, strict=True)]
    out = _out_schema(t, kind, fields)
    # Flink applies 'table.exec.state.ttl' to a temporal join, not the STATE_TTL hint
    op = Op(
        node.join_kind.value, lkeys, rkeys, len(lnames), len(rnames), _arrow_schema(t, out), residual=predicate,
        ttl_ms=t.ttl_ms,
    )
    packed = _packed(payload(left, right, lkeys, rkeys, times[0]), 0).unionByName(
        _packed(payload(right, left, rkeys, lkeys, times[1]), 1)
    )
    result = _run(t, node, packed, op, out)
    return Rel(result, tuple(n for n, _ in fields), kind=kind)


def translate_changelog_interval_join(t: Translator, node: IntervalJoin) -> Rel:
    """The interval join as a changelog operator (``sqlengine.changelog.interval_join``): each
    side's rows with their time, into one operator, on processing time (the time they were read,
    processing-time timers) or after a MATCH_RECOGNIZE or an OVER on event time (event-time timers: their
    rows come as the watermark passes them, and the watermark releases what is held)."""
    from pyspark.sql import functions as F

    from sqlengine.changelog.interval_join import IntervalJoin as Op

    names, left, right, ldf, rdf = _sides(t, node)
    lnames, rnames = names[: len(node.left.fields)], names[len(node.left.fields) :]
    lkeys = [lnames.index(a) for a, _ in node.equi_keys]
    rkeys = [rnames.index(b) for _, b in node.equi_keys]

    def payload(df: DataFrame, rel: Rel, time: str, keys: Column) -> DataFrame:
        return df.select(keys, rel.kind_column(), F.unix_millis(F.col(quote(time))).alias(t.fresh("t")),
                         *[F.col(quote(c)) for c in rel.columns])

    ltime, rtime = left.columns[lnames.index(node.left_time)], right.columns[rnames.index(node.right_time)]
    lpay = payload(ldf, left, ltime, _bucket(t, _key_cols(ldf, left, lkeys, rdf, right, rkeys)))
    rpay = payload(rdf, right, rtime, _bucket(t, _key_cols(rdf, right, rkeys, ldf, left, lkeys)))
    residual = interval_residual(node)
    fields = [(n, ldf.schema[c].dataType) for n, c in zip(lnames, left.columns, strict=True)]
    fields += [(n, rdf.schema[c].dataType) for n, c in zip(rnames, right.columns, strict=True)]
    out = _out_schema(t, t.fresh("kind"), fields)
    op = Op(node.join_kind.value, (lkeys, rkeys), (len(lnames), len(rnames)), node.lower_ms, node.upper_ms, _arrow_schema(t, out),
            compile_expression(residual, names) if residual is not None else None, event_time=not node.on_proctime)
    # on processing time a bounded job has no timers (see the operator)
    op.timers = node.on_proctime and not t.bounded
    result = _run(t, node, _packed(lpay, 0).unionByName(_packed(rpay, 1)), op, out)
    return Rel(result.select(*[F.col(quote(n)) for n in names]), tuple(names))
