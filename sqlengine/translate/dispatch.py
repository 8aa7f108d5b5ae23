"""Which function translates which plan node (batch mode adds what Spark runs only on tables)."""

from __future__ import annotations

from planner.logical.operators import (
    Calc,
    Correlate,
    Deduplicate,
    GroupAggregate,
    IntervalJoin,
    Join,
    LookupJoin,
    Scan,
    TopN,
    Union,
    Values,
    WindowAggregate,
    WindowJoin,
    WindowTVF,
)
from sqlengine.translate.aggregates import translate_deduplicate, translate_group_aggregate, translate_topn
from sqlengine.translate.batch_only import translate_over, translate_rank_batch, translate_sort
from sqlengine.translate.joins import translate_join
from sqlengine.translate.relational import translate_calc, translate_correlate, translate_union, translate_values
from sqlengine.translate.scan import translate_scan
from sqlengine.translate.windows import translate_tvf, translate_window_aggregate

HANDLERS = {
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
}

# in batch mode (execution.runtime-mode = batch) Spark's window functions run what streams cannot
from planner.logical.operators import OverAggregate, Sort  # noqa: E402

BATCH_HANDLERS = {
    OverAggregate: translate_over,
    Sort: translate_sort,
    TopN: translate_rank_batch,
    Deduplicate: translate_rank_batch,
}
