"""Why a plan cannot run on Spark: one code per reason, each with its message and hint, in one
table. Every refusal anywhere (lint's SE301, EXPLAIN's advice, the shell, ``engine.start``, the
translator) is a ``Problem`` with one of these codes, rendered from this table."""

from __future__ import annotations

from enum import StrEnum

LATER = "planned for a later release (changelog operators on transformWithState)"


class Code(StrEnum):
    # plan operators, streaming
    INSERT_OVERWRITE_STREAMING = "insert-overwrite-streaming"
    OVER_STREAMING = "over-streaming"
    TOP_N_RETRACTS = "top-n-retracts"
    UNORDERABLE = "unorderable"
    WINDOW_RANK_FUNCTION = "window-rank-function"
    SORT_LIMIT_STREAMING = "sort-limit-streaming"
    SORT_NOT_TIME = "sort-not-time"
    SORT_STREAMING = "sort-streaming"
    PROCTIME_WINDOW = "proctime-window"
    WINDOW_AGG_UPDATING_INPUT = "window-aggregate-updating-input"
    GROUP_AGG_UPDATING_INPUT = "group-aggregate-updating-input"
    TEMPORAL_JOIN = "temporal-join"
    LOOKUP_JOIN_UNBOUNDED = "lookup-join-unbounded"
    WINDOW_JOIN_OUTER = "window-join-outer"
    INTERVAL_JOIN_UPDATING_INPUT = "interval-join-updating-input"
    INTERVAL_JOIN_KIND = "interval-join-kind"
    PROCTIME_INTERVAL_JOIN = "proctime-interval-join"
    JOIN_UPDATING_INPUT = "join-updating-input"
    OUTER_JOIN_UNBOUNDED = "outer-join-unbounded"
    ANTI_JOIN_STREAMS = "anti-join-streams"
    UNION_UPDATING = "union-updating"
    STATE_TTL = "state-ttl"
    STATEFUL_AFTER_UPDATING = "stateful-after-updating"
    LATE_ROWS_INTO_UPDATING = "late-rows-into-updating"
    ROOT_RETRACTS = "root-retracts"
    SINK_TAKES_APPENDS = "sink-takes-appends"
    WATERMARK_NOT_CONSTANT = "watermark-not-constant"
    # plan operators, both modes
    MATCH_RECOGNIZE = "match-recognize"
    TABLE_FUNCTION = "table-function"
    UNNEST_SEVERAL = "unnest-several"
    LOOKUP_JOIN_KIND = "lookup-join-kind"
    SESSION_KEYS = "session-keys"
    WINDOW_NOT_CARRIED = "window-not-carried"
    LEGACY_CUMULATE = "legacy-cumulate"
    SESSION_TVF_USE = "session-tvf-use"
    # expressions, both modes
    USER_FUNCTION = "user-function"
    NO_COUNTERPART = "no-counterpart"
    LITERAL_SEPARATOR = "literal-separator"
    DISTINCT_AGGREGATE = "distinct-aggregate"


# message templates: ``{operator}`` and the problem's own parameters are filled in
MESSAGES: dict[Code, str] = {
    Code.INSERT_OVERWRITE_STREAMING: "INSERT OVERWRITE runs only in batch mode (SET 'execution.runtime-mode' = 'batch'), as in Flink",
    Code.OVER_STREAMING: "Spark Structured Streaming has no OVER windows on streams; " + LATER,
    Code.TOP_N_RETRACTS: "Top-N produces retractions, which Spark Structured Streaming cannot represent; " + LATER,
    Code.UNORDERABLE: "ordering by `{column}` ascending cannot run on Spark yet (only numbers, dates and times can be reversed)",
    Code.WINDOW_RANK_FUNCTION: "{function} in a window Top-N cannot run on Spark yet; use ROW_NUMBER()",
    Code.SORT_LIMIT_STREAMING: "ORDER BY ... LIMIT on a stream produces retractions; " + LATER,
    Code.SORT_NOT_TIME: "a stream can only be sorted by a time attribute, ascending",
    Code.SORT_STREAMING: "ORDER BY on a stream is not supported by Spark Structured Streaming",
    Code.PROCTIME_WINDOW: "processing-time windows cannot run on Spark yet: Spark closes windows only on an event-time watermark",
    Code.WINDOW_AGG_UPDATING_INPUT: "a window aggregation over an updating input is not supported by Spark Structured Streaming",
    Code.GROUP_AGG_UPDATING_INPUT: "an aggregation over an updating input needs retractions; " + LATER,
    Code.TEMPORAL_JOIN: "event-time temporal joins (FOR SYSTEM_TIME AS OF a rowtime) have no counterpart in Spark; " + LATER,
    Code.LOOKUP_JOIN_UNBOUNDED: "a lookup join needs a finite right-hand table (read once, as a static table)",
    Code.WINDOW_JOIN_OUTER: "only inner window joins run on Spark Structured Streaming",
    Code.INTERVAL_JOIN_UPDATING_INPUT: "an interval join over an updating input is not supported",
    Code.INTERVAL_JOIN_KIND: "{join} interval joins are not supported by Spark Structured Streaming",
    Code.PROCTIME_INTERVAL_JOIN: "processing-time interval joins are not supported by Spark Structured Streaming",
    Code.JOIN_UPDATING_INPUT: "a join over an updating input needs retractions; " + LATER,
    Code.OUTER_JOIN_UNBOUNDED: (
        "an outer join without a time bound produces retractions; Spark can run outer joins only as "
        "interval joins (bound both sides' time attributes)"
    ),
    Code.ANTI_JOIN_STREAMS: "NOT IN / anti joins between streams are not supported by Spark Structured Streaming",
    Code.UNION_UPDATING: "UNION of updating inputs needs retractions; " + LATER,
    Code.STATE_TTL: (
        "a state TTL is not enforced on Spark yet (the state would be kept forever and idle keys never "
        "forgotten, so the results would differ); planned for a later release (state TTL on transformWithState)"
    ),
    Code.STATEFUL_AFTER_UPDATING: (
        "{operator} after {below}: Spark runs an updating operator ({below}) only as the last stateful step of a query"
    ),
    Code.LATE_ROWS_INTO_UPDATING: (
        "{operator} over {below}: {below} emits rows behind the watermark, and Spark refuses them as input of an "
        "updating operator ({operator}) (its global-watermark correctness check)"
    ),
    Code.ROOT_RETRACTS: (
        "the query's result retracts rows ({why}), which Spark Structured Streaming cannot represent; " + LATER
    ),
    Code.SINK_TAKES_APPENDS: (
        "the {connector} connector only appends rows, but the query updates rows (upsert key: {key}); write the "
        "result to a table that takes updates, or make the query insert-only (e.g. a window aggregate instead of a "
        "group aggregate)"
    ),
    Code.WATERMARK_NOT_CONSTANT: "Only watermarks of the form `ts - INTERVAL ...` (or `ts`) run on Spark",
    Code.MATCH_RECOGNIZE: "MATCH_RECOGNIZE has no counterpart in Spark",
    Code.TABLE_FUNCTION: "table functions (LATERAL TABLE) need a user-defined function, which sqlengine cannot run yet",
    Code.UNNEST_SEVERAL: "UNNEST of several arrays at once is not supported yet",
    Code.LOOKUP_JOIN_KIND: "a lookup join is an inner or LEFT join",
    Code.SESSION_KEYS: (
        "a SESSION window runs on Spark only when it is partitioned by exactly the GROUP BY keys "
        "(SESSION(TABLE t PARTITION BY k, ...) ... GROUP BY k, window_start, window_end)"
    ),
    Code.WINDOW_NOT_CARRIED: (
        "the {what} needs the window of a window table function or window aggregation as its input, but "
        "`{window}` comes through {through}"
    ),
    Code.LEGACY_CUMULATE: "GROUP BY CUMULATE(...) cannot run on Spark yet; use the CUMULATE window table function",
    Code.SESSION_TVF_USE: (
        "a SESSION window table function runs on Spark only under a window aggregation grouped by its "
        "window_start and window_end (Spark makes sessions while aggregating)"
    ),
    Code.USER_FUNCTION: (
        "user-defined function `{name}` cannot run on Spark yet (it is declared as '{class_name}', a JVM class "
        "sqlengine does not load)"
    ),
    Code.NO_COUNTERPART: "{function}() has no counterpart in Spark",
    Code.LITERAL_SEPARATOR: "{function} needs a literal separator to run on Spark",
    Code.DISTINCT_AGGREGATE: "{function}(DISTINCT ...) cannot run on Spark yet",
}

HINTS: dict[Code, str] = {
    Code.TOP_N_RETRACTS: (
        "rank per window (window Top-N: PARTITION BY window_start, window_end, ...); its results are final, not retracted"
    ),
    Code.UNORDERABLE: "keep the first row (ORDER BY the event time ASC), or deduplicate per window",
    Code.WINDOW_RANK_FUNCTION: "use ROW_NUMBER()",
    Code.OVER_STREAMING: "aggregate per window (TUMBLE/HOP) instead of per row",
    Code.SORT_LIMIT_STREAMING: "sort the results where they are read (ORDER BY is for bounded results)",
    Code.SORT_NOT_TIME: "sort the results where they are read (ORDER BY is for bounded results)",
    Code.SORT_STREAMING: "sort the results where they are read (ORDER BY is for bounded results)",
    Code.OUTER_JOIN_UNBOUNDED: "bound the join in time (an interval join) so that rows become final",
    Code.JOIN_UPDATING_INPUT: "bound the join in time (an interval join) so that rows become final",
    Code.GROUP_AGG_UPDATING_INPUT: "aggregate an insert-only input (a window aggregation below emits final rows)",
    Code.WINDOW_AGG_UPDATING_INPUT: "aggregate an insert-only input (a window aggregation below emits final rows)",
    Code.STATE_TTL: "bound the state with event time instead (a window, an interval join, a window Top-N), or run it on Flink",
    Code.STATEFUL_AFTER_UPDATING: "make the updating operator the last stateful step, or window the operators below it",
    Code.LATE_ROWS_INTO_UPDATING: "make the updating operator the last stateful step, or window the operators below it",
    Code.ROOT_RETRACTS: "keep the GROUP BY keys in the result, so that each row replaces the row of its key",
    Code.USER_FUNCTION: "write it with built-in functions; user functions (Python or JVM) are on the roadmap",
    Code.DISTINCT_AGGREGATE: "use COUNT, SUM or AVG (DISTINCT), or GROUP BY the value first and aggregate the groups",
    Code.WATERMARK_NOT_CONSTANT: "write the watermark as WATERMARK FOR ts AS ts - INTERVAL '5' SECOND",
    Code.LITERAL_SEPARATOR: "give the separator as a string literal",
    Code.PROCTIME_WINDOW: "window on the event-time attribute (the column of WATERMARK FOR)",
}
