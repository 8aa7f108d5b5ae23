"""Which function translates which plan node (batch mode adds what Spark runs only on tables)."""

from __future__ import annotations

from planner.analysis.physical import Physical, window_operator
from planner.logical.joins import IntervalJoin, Join, LookupJoin, TemporalJoin, WindowJoin
from planner.logical.operators import (
    Calc,
    ChangelogNormalize,
    Correlate,
    Deduplicate,
    GroupAggregate,
    MatchRecognize,
    Node,
    OverAggregate,
    Scan,
    Sink,
    Sort,
    TopN,
    Union,
    Values,
    WindowAggregate,
    WindowTVF,
)
from sqlengine.translate.aggregates import translate_deduplicate, translate_group_aggregate, translate_topn
from sqlengine.translate.batch_only import translate_over, translate_rank_batch, translate_sort
from sqlengine.translate.changelog import (
    translate_changelog_dedup,
    translate_changelog_interval_join,
    translate_changelog_join,
    translate_changelog_normalize,
    translate_changelog_rank,
    translate_changelog_temporal_join,
)
from sqlengine.translate.changelog_aggregates import (
    has_user_aggregate,
    translate_changelog_aggregate,
    translate_changelog_over,
    translate_changelog_window_aggregate,
)
from sqlengine.translate.core import Handler, Rel, Translator
from sqlengine.translate.joins import translate_join, translate_temporal_join_batch
from sqlengine.translate.match_recognize import translate_changelog_match, translate_match_batch
from sqlengine.translate.over_changes import translate_over_changes
from sqlengine.translate.relational import translate_calc, translate_correlate, translate_union, translate_values
from sqlengine.translate.scan import translate_scan
from sqlengine.translate.window_rank import translate_proctime_window_rank
from sqlengine.translate.windows import translate_tvf, translate_window_aggregate


def translate_sink(t: Translator, node: Sink) -> Rel:
    return t.translate(node.input)


HANDLERS: dict[type[Node], Handler] = {
    Scan: translate_scan,
    Values: translate_values,
    Calc: translate_calc,
    Union: translate_union,
    Correlate: translate_correlate,
    WindowTVF: translate_tvf,
    WindowAggregate: translate_window_aggregate,
    GroupAggregate: translate_group_aggregate,
    Deduplicate: translate_deduplicate,
    TopN: translate_topn,
    Join: translate_join,
    IntervalJoin: translate_join,
    WindowJoin: translate_join,
    LookupJoin: translate_join,
    Sink: translate_sink,
}

# in batch mode (execution.runtime-mode = batch) Spark's window functions run what streams cannot
BATCH_HANDLERS: dict[type[Node], Handler] = {
    OverAggregate: translate_over,
    Sort: translate_sort,
    TopN: translate_rank_batch,
    Deduplicate: translate_rank_batch,
    TemporalJoin: translate_temporal_join_batch,
    MatchRecognize: translate_match_batch,
}


# where the planner made an operator a changelog operator (planner.analysis.physical)
CHANGELOG_HANDLERS: dict[type[Node], Handler] = {
    GroupAggregate: translate_changelog_aggregate,
    TopN: translate_changelog_rank,
    Sort: translate_changelog_rank,
    Deduplicate: translate_changelog_dedup,
    Join: translate_changelog_join,
    ChangelogNormalize: translate_changelog_normalize,
    OverAggregate: translate_changelog_over,
    TemporalJoin: translate_changelog_temporal_join,
    IntervalJoin: translate_changelog_interval_join,  # on processing time, or on event time after a match
    # on processing time, with a Python aggregate function, sessions on a zone's wall clock, after a MATCH_RECOGNIZE
    WindowAggregate: translate_changelog_window_aggregate,
    MatchRecognize: translate_changelog_match,
}


def translate_user_over_batch(t: Translator, node: OverAggregate) -> Rel:
    """Batch mode: an OVER ordered by one time attribute as on a stream, any other as over changes."""
    return translate_over_changes(t, node) if node.on_changes(True) else translate_changelog_over(t, node)


# in batch mode, the aggregations that call a Python aggregate function (Spark's cannot) run
# their changelog operator over each bucket's rows at once
USER_AGGREGATE_BATCH_HANDLERS: dict[type[Node], Handler] = {
    GroupAggregate: translate_changelog_aggregate,
    WindowAggregate: translate_changelog_window_aggregate,
    OverAggregate: translate_user_over_batch,
}


def handler_for(node: Node, streaming: bool, physical: Physical | None = None, time_zone: str = "UTC") -> Handler | None:
    if not streaming:
        if has_user_aggregate(node) or window_operator(node, time_zone, streaming=False):
            return USER_AGGREGATE_BATCH_HANDLERS.get(type(node))
        batch = BATCH_HANDLERS.get(type(node))
        if batch is not None:
            return batch
    if physical is not None and physical.changelog:
        if physical.over_changes:  # an OVER over updates, or ordered by no time attribute
            return translate_over_changes
        if isinstance(node, (TopN, Deduplicate)) and node.window is not None:  # on processing time
            return translate_proctime_window_rank
        return CHANGELOG_HANDLERS.get(type(node))
    return HANDLERS.get(type(node))
