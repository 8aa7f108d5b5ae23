"""Joins on Spark: stream-stream joins for regular, interval and window joins (Spark keeps a side's
rows until the watermark passes the time bound in the condition, or the window struct in the
keys), a stream-static join for a lookup join (the right table read once, as a batch)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from planner.analysis.physical import Physical
from planner.analysis.versioned import versioned
from planner.binder.joins import conjuncts
from planner.logical.evaluate import residual_condition
from planner.logical.joins import Join, JoinKind, LookupJoin, TemporalJoin, WindowJoin
from planner.logical.operators import Deduplicate, Node
from sqlengine.translate.core import Handler, Rel, Translator, unreachable
from sqlengine.translate.expressions import SparkExpressions, quote

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

HOW = {
    JoinKind.INNER: "inner",
    JoinKind.LEFT: "left_outer",
    JoinKind.RIGHT: "right_outer",
    JoinKind.FULL: "full_outer",
    JoinKind.SEMI: "left_semi",
    JoinKind.ANTI: "left_anti",
}


def _side(t: Translator, rel: Rel, names: list[str], rename_hidden: bool) -> Rel:
    """A join input with the join's column names for its fields; its hidden columns under fresh
    names on the right side (both sides may carry the same ones: a subtree used twice)."""
    from pyspark.sql import functions as F

    cols = [F.col(quote(c)).alias(n) for c, n in zip(rel.columns, names, strict=True)]
    windows, times = dict(rel.windows), dict(rel.session_times)
    if rename_hidden:
        windows = {w: t.fresh("w") for w in rel.windows}
        times = {w: t.fresh("t") for w in rel.session_times}
    cols += [F.col(quote(rel.windows[w])).alias(windows[w]) for w in rel.windows]
    cols += [F.col(quote(rel.session_times[w])).alias(times[w]) for w in rel.session_times]
    if rel.kind:  # a lookup join's probe side may be a changelog: each row keeps its kind
        cols.append(F.col(quote(rel.kind)))
    return Rel(rel.df.select(*cols), tuple(names), windows, times, rel.kind)


def translate_join(t: Translator, node: Join) -> Rel:
    from pyspark.sql import functions as F

    n_left = len(node.left.fields)
    names = node.field_names()
    left = _side(t, t.translate(node.left), names[:n_left], rename_hidden=False)
    right_rel = _static(t, node) if isinstance(node, LookupJoin) else t.translate(node.right)
    right = _side(t, right_rel, names[n_left:], rename_hidden=True)
    exprs = t.join_exprs(node)
    cond = F.expr(exprs.sql(node.condition)) if node.condition is not None else F.lit(True)
    if isinstance(node, WindowJoin):
        lw, rw = left.windows.get(node.left_window), right.windows.get(node.right_window)
        if lw is None or rw is None:
            raise unreachable(node, "a window join without the windows of both sides")
        # equal windows as a key: Spark then drops a window's rows once the watermark passes its end
        cond = cond & (F.col(quote(lw)) == F.col(quote(rw)))
    how = HOW[node.join_kind]
    left_df, right_df = left.df, right.df
    if t.streaming and not isinstance(node, LookupJoin) and node.condition is not None:
        left_df, right_df = _without_null_keys(exprs, node.condition, left_df, right_df, set(names[:n_left]), how)
    df = left_df.join(right_df, on=cond, how=how)
    windows = {**{w: c for w, c in right.windows.items() if w not in left.windows}, **left.windows}
    times = {**{w: c for w, c in right.session_times.items() if w not in left.session_times}, **left.session_times}
    if node.join_kind in (JoinKind.SEMI, JoinKind.ANTI):
        return Rel(df, tuple(names[:n_left]), left.windows, left.session_times, left.kind)
    return Rel(df, tuple(names), windows, times, left.kind)


def _without_null_keys(
    exprs: SparkExpressions, condition: exp.Expr, left: DataFrame, right: DataFrame, left_set: set[str], how: str
) -> tuple[DataFrame, DataFrame]:
    """Drop rows whose equi-join key is NULL from the sides whose unmatched rows are not kept.

    `a = b` is never true when a or b is NULL, so this changes no result; but Spark's
    stream-stream join matches NULL keys with each other, and leaves excluding them to the
    optimizer's inferred IS NOT NULL filters, which do not always reach the join's inputs (found
    by hypothesis in bounded runs): NULL = NULL rows came out of inner and LEFT joins."""
    from pyspark.sql import functions as F

    for c in conjuncts(condition):
        if not isinstance(c, exp.EQ):
            continue
        sides = []
        for e in (c.this, c.expression):
            cols = {col.name for col in e.find_all(exp.Column)}
            sides.append("left" if cols and cols <= left_set else "right" if cols and not cols & left_set else None)
        if set(sides) != {"left", "right"}:
            continue
        for e, side in zip((c.this, c.expression), sides, strict=True):
            keep = F.expr(exprs.sql(e)).isNotNull()
            if side == "left" and how in ("inner", "right_outer", "left_semi"):
                left = left.filter(keep)
            elif side == "right" and how in ("inner", "left_outer", "left_semi", "left_anti"):
                right = right.filter(keep)
    return left, right


def _static(t: Translator, node: LookupJoin) -> Rel:
    """The right side of a lookup join, read once as a static DataFrame."""
    sub = Translator(t.spark, t.props, False, t.job_dir, t.handler_for, end_markers=False, time_zone=t.time_zone, _taken=t._taken)
    rel = sub.translate(node.right)
    t.sources.extend(sub.sources)
    return rel


def translate_temporal_join_batch(t: Translator, node: TemporalJoin) -> Rel:
    """The event-time temporal join of a bounded run: each left row with the latest version of
    its key at or before its time (of versions at one time, any one), where the rest of the
    condition holds; LEFT pads the others. What a streaming run emits once the watermark has
    passed every row, when no version comes behind the watermark."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    n_left = len(node.left.fields)
    names = node.field_names()
    v = versioned(node.right, t.props)
    if v.time is None:
        raise unreachable(node, "a temporal join against a side without event time")
    left = _side(t, t.translate(node.left), names[:n_left], rename_hidden=False)
    right = _side(t, _versions(t, node.right, v.history), names[n_left:], rename_hidden=True)
    rid, rn = t.fresh("rid"), t.fresh("rn")
    ltime, rtime = F.col(quote(node.left_time)), F.col(quote(names[n_left + [f.name for f in node.right.fields].index(v.time)]))
    # a row without a time has no place in time: the streaming operator drops it too
    ldf = left.df.filter(ltime.isNotNull()).withColumn(rid, F.monotonically_increasing_id())
    on = F.lit(True)
    for a, b in node.equi_keys:
        on = on & (F.col(quote(a)) == F.col(quote(b)))
    candidates = ldf.join(right.df, on=on & (rtime <= ltime), how="inner")
    latest = candidates.withColumn(rn, F.row_number().over(Window.partitionBy(rid).orderBy(rtime.desc()))).filter(F.col(rn) == 1)
    residual = residual_condition(node)
    if residual is not None:
        latest = latest.filter(F.expr(t.join_exprs(node).sql(residual)))
    right_cols = [*right.columns, *right.windows.values(), *right.session_times.values()]
    if node.join_kind == JoinKind.INNER:
        df = latest
    else:
        df = ldf.join(latest.select(rid, *[F.col(quote(c)) for c in right_cols]), on=rid, how="left_outer")
    df = df.drop(rid, rn)
    windows = {**{w: c for w, c in right.windows.items() if w not in left.windows}, **left.windows}
    times = {**{w: c for w, c in right.session_times.items() if w not in left.session_times}, **left.session_times}
    return Rel(df, tuple(names), windows, times, left.kind)


def _versions(t: Translator, right: Node, history: Deduplicate | None) -> Rel:
    """The versions of a temporal join's right side: its rows; for a versioned view (a keep-last
    deduplication on event time), every row the deduplication reads is a version."""
    if history is None:
        return t.translate(right)

    def handler_for(node: Node, streaming: bool, physical: Physical | None = None, time_zone: str = "UTC") -> Handler | None:
        if node.node_id == history.node_id:
            return lambda sub, n: sub.translate(n.inputs[0])
        return t.handler_for(node, streaming, physical, time_zone)

    sub = Translator(t.spark, t.props, False, t.job_dir, handler_for, end_markers=False, time_zone=t.time_zone, _taken=t._taken)
    rel = sub.translate(right)
    t.sources.extend(sub.sources)
    return rel
