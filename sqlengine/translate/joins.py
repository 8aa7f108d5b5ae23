"""Joins on Spark: stream-stream joins for regular, interval and window joins (Spark keeps a side's
rows until the watermark passes the time bound in the condition, or the window struct in the
keys), a stream-static join for a lookup join (the right table read once, as a batch)."""

from __future__ import annotations

from pyspark.sql import functions as F

from planner.binder.joins import conjuncts
from planner.logical.operators import Join, JoinKind, LookupJoin, WindowJoin
from sqlengine.translate.core import Translator, hidden
from sqlengine.translate.errors import TranslationError
from sqlengine.translate.expressions import quote

HOW = {
    JoinKind.INNER: "inner",
    JoinKind.LEFT: "left_outer",
    JoinKind.RIGHT: "right_outer",
    JoinKind.FULL: "full_outer",
    JoinKind.SEMI: "left_semi",
    JoinKind.ANTI: "left_anti",
}


def _side(df, names: list[str], suffix: str):  # type: ignore[no-untyped-def]
    """A join input with the join's column names; hidden columns made unique per side."""
    vis = [c for c in df.columns if not c.startswith("__")]
    cols = [F.col(quote(c)).alias(n) for c, n in zip(vis, names)]
    cols += [F.col(quote(h)).alias(h + suffix) for h in hidden(df)]
    return df.select(*cols)


def translate_join(t: Translator, node: Join):  # type: ignore[no-untyped-def]
    n_left = len(node.left.fields)
    names = node.field_names()
    left = _side(t.translate(node.left), names[:n_left], "")
    if isinstance(node, LookupJoin):
        right_df = _static(t, node)
    else:
        right_df = t.translate(node.right)
    right = _side(right_df, names[n_left:], "_r")
    exprs = t.join_exprs(node)
    cond = F.expr(exprs.sql(node.condition)) if node.condition is not None else F.lit(True)
    if isinstance(node, WindowJoin):
        lw = [h for h in hidden(left) if h.startswith("__w")]
        rw = [h for h in hidden(right) if h.startswith("__w")]
        if not lw or not rw:
            raise TranslationError("A window join needs window aggregations or window TVFs on both sides", node.origin)
        # equal windows as a key: Spark then drops a window's rows once the watermark passes its end
        cond = cond & (F.col(lw[0]) == F.col(rw[0]))
    how = HOW[node.join_kind]
    if isinstance(node, LookupJoin) and how not in ("inner", "left_outer"):
        raise TranslationError("A lookup join is an inner or LEFT join", node.origin)
    if t.streaming and not isinstance(node, LookupJoin) and node.condition is not None:
        left, right = _without_null_keys(exprs, node.condition, left, right, names[:n_left], how)
    return left.join(right, on=cond, how=how)


def _without_null_keys(exprs, condition, left, right, left_names: list[str], how: str):  # type: ignore[no-untyped-def]
    """Drop rows whose equi-join key is NULL from the sides whose unmatched rows are not kept.

    `a = b` is never true when a or b is NULL, so this changes no result; but Spark's
    stream-stream join matches NULL keys with each other, and leaves excluding them to the
    optimizer's inferred IS NOT NULL filters, which do not always reach the join's inputs (found
    by hypothesis in bounded runs): NULL = NULL rows came out of inner and LEFT joins."""
    from sqlglot import exp

    left_set = set(left_names)
    for c in conjuncts(condition):
        if not isinstance(c, exp.EQ):
            continue
        sides = []
        for e in (c.this, c.expression):
            cols = {col.name for col in e.find_all(exp.Column)}
            sides.append("left" if cols and cols <= left_set else "right" if cols and not cols & left_set else None)
        if set(sides) != {"left", "right"}:
            continue
        for e, side in zip((c.this, c.expression), sides):
            keep = F.expr(exprs.sql(e)).isNotNull()
            if side == "left" and how in ("inner", "right_outer", "left_semi"):
                left = left.filter(keep)
            elif side == "right" and how in ("inner", "left_outer", "left_semi", "left_anti"):
                right = right.filter(keep)
    return left, right


def _static(t: Translator, node: LookupJoin):  # type: ignore[no-untyped-def]
    """The right side of a lookup join, read once as a static DataFrame."""
    from sqlengine.translate.core import Translator as Tr

    sub = Tr(t.spark, t.props, streaming=False, job_dir=t.job_dir, functions=t.functions, flush_at_end=False)
    df = sub.translate(node.right)
    t.sources.extend(sub.sources)
    return df
