"""Window Top-N and window deduplication on processing time: each window's rows (its bounds made
by the window table function below) go, hashed by their partition key, to the changelog operator
``sqlengine.changelog.window_rank``, which emits each window's first N rows when the wall clock
passes its end; after a MATCH_RECOGNIZE or an OVER on event time, when the watermark passes it.
The other event-time forms run on Spark's own operators (``windows.translate_window_rank``)."""

from __future__ import annotations

from planner.logical.fields import WindowRole
from planner.logical.operators import Deduplicate, TopN, window_on_proctime
from sqlengine.translate.changelog import _arrow, _arrow_schema, _bucket, _out_schema, _packed, _run
from sqlengine.translate.core import Rel, Translator, unreachable
from sqlengine.translate.event_time import watermarked, without_event_time
from sqlengine.translate.expressions import quote
from sqlengine.translate.wall_windows import bounds_zone


def translate_proctime_window_rank(t: Translator, node: TopN | Deduplicate) -> Rel:
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType

    from sqlengine.changelog.window_rank import WindowRank

    spec = node.window
    if spec is None:
        raise unreachable(node, "a window ranking without its window")
    rel = t.translate(node.input)
    # on event time (after a MATCH_RECOGNIZE or an OVER) the watermark stays on the input: Spark's timers need it
    event_time = not window_on_proctime(node, spec)
    df = rel.df if event_time else without_event_time(rel.df)
    mark = watermarked(df) if event_time and t.streaming else []
    bounds = {f.window.role: f.name for f in node.input.fields if f.window is not None and f.window.window_id == spec.id}
    if WindowRole.START not in bounds or WindowRole.END not in bounds:
        raise unreachable(node, "a window ranking without its window's bounds")
    names = [n for n in node.field_names() if n != node.rank_field]
    order: tuple[tuple[str, bool], ...]
    if isinstance(node, Deduplicate):
        keys, order, n, latest_first = node.keys, ((node.order_field, node.keep_last),), 1, node.keep_last
    else:
        keys, order, n, latest_first = node.partition_keys, node.order, node.n, False
    window_names = set(bounds.values())
    group_keys = [k for k in keys if k not in window_names]  # the window is the operator's own key part
    payload = df.select(
        _bucket(t, [F.col(quote(k)) for k in group_keys]), rel.kind_column(),
        F.unix_millis(F.col(quote(bounds[WindowRole.START]))).alias(t.fresh("ws")),
        F.unix_millis(F.col(quote(bounds[WindowRole.END]))).alias(t.fresh("we")),
        *[F.col(quote(c)).alias(f"c{i}") for i, c in enumerate(names)], *mark,
    )
    fields = [(f.name, LongType() if f.name == node.rank_field else df.schema[f.name].dataType) for f in node.fields]
    out = _out_schema(t, t.fresh("kind"), fields)
    all_names = node.field_names()
    op = WindowRank(
        [names.index(k) for k in group_keys], [(names.index(f), d) for f, d in order],
        [_arrow(t, df.schema[c].dataType) for c in names], n, latest_first,
        all_names.index(node.rank_field) if node.rank_field is not None else None, _arrow_schema(t, out),
        bounds_zone(t, node, spec), event_time,
    )
    op.timers = not event_time and not t.bounded  # as the window aggregation on processing time
    result = _run(t, node, _packed(payload), op, out)
    return Rel(result.select(*[F.col(quote(n)) for n in all_names]), tuple(all_names))
