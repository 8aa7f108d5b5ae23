"""Why a plan cannot run on Spark: one code per reason, each with its message and hint, in one
table. Every refusal anywhere (lint's SE301, EXPLAIN's advice, the shell, ``engine.start``, the
translator) is a ``Problem`` with one of these codes, rendered from this table."""

from __future__ import annotations

from enum import StrEnum

LATER = "planned for a later release"


class Code(StrEnum):
    # plan operators, streaming
    INSERT_OVERWRITE_STREAMING = "insert-overwrite-streaming"
    OVER_NOT_ROWTIME = "over-not-rowtime"
    OVER_UPDATING_INPUT = "over-updating-input"
    OVER_FUNCTION = "over-function"
    OVER_FUNCTION_STREAM = "over-function-stream"
    OVER_RANK_TIES = "over-rank-ties"
    OVER_SAME_WINDOW = "over-same-window"
    OVER_LAG = "over-lag"
    WINDOW_RANK_FUNCTION = "window-rank-function"
    SORT_NOT_TIME = "sort-not-time"
    SORT_STREAMING = "sort-streaming"
    WINDOW_AGG_UPDATING_INPUT = "window-aggregate-updating-input"
    TEMPORAL_JOIN_UPDATING_LEFT = "temporal-join-updating-left"
    LOOKUP_JOIN_UNBOUNDED = "lookup-join-unbounded"
    WINDOW_JOIN_OUTER = "window-join-outer"
    INTERVAL_JOIN_UPDATING_INPUT = "interval-join-updating-input"
    INTERVAL_JOIN_KIND = "interval-join-kind"
    UNION_UPDATING = "union-updating"
    CHANGELOG_AGGREGATE = "changelog-aggregate"
    JOIN_CONDITION = "join-condition"
    DEDUP_PROCTIME_CHANGES = "dedup-proctime-changes"
    AFTER_CHANGELOG = "after-changelog"
    SINK_TAKES_APPENDS = "sink-takes-appends"
    WATERMARK_NOT_CONSTANT = "watermark-not-constant"
    # plan operators, both modes
    MATCH_RECOGNIZE = "match-recognize"
    TABLE_FUNCTION = "table-function"
    UNNEST_SEVERAL = "unnest-several"
    LOOKUP_JOIN_KIND = "lookup-join-kind"
    TEMPORAL_JOIN_KIND = "temporal-join-kind"
    TEMPORAL_JOIN_NO_KEY = "temporal-join-no-key"
    TEMPORAL_JOIN_NO_TIME = "temporal-join-no-time"
    TEMPORAL_JOIN_KEY_NOT_JOINED = "temporal-join-key-not-joined"
    TEMPORAL_JOIN_BATCH = "temporal-join-batch"
    SESSION_KEYS = "session-keys"
    WINDOW_NOT_CARRIED = "window-not-carried"
    SESSION_TVF_USE = "session-tvf-use"
    UPSERT_SOURCE = "upsert-source"
    # expressions, both modes
    USER_FUNCTION = "user-function"
    USER_AGGREGATE_RETRACT = "user-aggregate-retract"
    SESSION_MERGE = "session-merge"
    NO_COUNTERPART = "no-counterpart"
    LITERAL_SEPARATOR = "literal-separator"
    DISTINCT_AGGREGATE = "distinct-aggregate"
    FUNCTION_DIFFERS = "function-differs"


# message templates: ``{operator}`` and the problem's own parameters are filled in
MESSAGES: dict[Code, str] = {
    Code.UPSERT_SOURCE: (
        "reading {table}, an {connector} table (upserts and tombstones of its key), runs in streaming mode only, "
        "as in Flink (its source is unbounded)"
    ),
    Code.INSERT_OVERWRITE_STREAMING: "INSERT OVERWRITE runs only in batch mode (SET 'execution.runtime-mode' = 'batch'), as in Flink",
    Code.OVER_NOT_ROWTIME: (
        "an OVER window with a RANGE frame of a size needs one ascending ORDER BY key that is a number or a time, to "
        "measure the range on"
    ),
    Code.OVER_UPDATING_INPUT: (
        "an OVER window ordered by a time attribute cannot read the rows of a changelog operator yet: they carry no "
        "watermark to wait on"
    ),
    Code.OVER_FUNCTION: (
        "{function} cannot run in an OVER window over changes yet (ordered by no time attribute, or over an updating "
        "input); the aggregate functions (all but APPROX_COUNT_DISTINCT) and Python aggregate functions can, and "
        "ordered by a time attribute LAG and ROW_NUMBER() too"
    ),
    Code.OVER_FUNCTION_STREAM: (
        "{function} in an OVER window is not supported in stream mode, as in Flink 2.3 (LAG, ROW_NUMBER and the "
        "aggregate functions are)"
    ),
    Code.OVER_RANK_TIES: (
        "{function}() in an OVER window on a stream: Flink 2.3 numbers tied rows there as a count (1, 3, 3, where its "
        "batch mode and the SQL standard give 1, 2, 2), and sqlengine refuses it rather than pick one of the two"
    ),
    Code.OVER_SAME_WINDOW: (
        "ROW_NUMBER() numbers rows one after another (a ROWS frame) while {function} takes the rows of one time "
        "together (RANGE): on a stream they cannot share an OVER window, as in Flink 2.3 (\"All aggregates must be "
        "computed on the same window\")"
    ),
    Code.OVER_LAG: "LAG on a stream: {what}",
    Code.WINDOW_RANK_FUNCTION: (
        "{function}() in a window Top-N is not supported on a stream, as in Flink 2.3 (only ROW_NUMBER() is); "
        "in batch mode it runs"
    ),
    Code.SORT_NOT_TIME: "a stream can only be sorted by a time attribute, ascending",
    Code.SORT_STREAMING: "ORDER BY on a stream is not supported by Spark Structured Streaming",
    Code.WINDOW_AGG_UPDATING_INPUT: "a window aggregation over an updating input is not supported by Spark Structured Streaming",
    Code.TEMPORAL_JOIN_UPDATING_LEFT: (
        "an event-time temporal join whose left (probe) side updates or retracts rows cannot run yet; over an "
        "insert-only left side it runs"
    ),
    Code.LOOKUP_JOIN_UNBOUNDED: "a lookup join needs a finite right-hand table (read once, as a static table)",
    Code.WINDOW_JOIN_OUTER: "only inner window joins run on Spark Structured Streaming",
    Code.INTERVAL_JOIN_UPDATING_INPUT: "an interval join over an updating input is not supported",
    Code.INTERVAL_JOIN_KIND: "{join} interval joins are not supported by Spark Structured Streaming",
    Code.UNION_UPDATING: "UNION (without ALL) of updating inputs cannot run on Spark yet: UNION ALL runs",
    Code.CHANGELOG_AGGREGATE: (
        "{function} cannot run as a changelog aggregation yet (it runs as one because {why}); the other "
        "aggregate functions and Python aggregate functions can"
    ),
    Code.JOIN_CONDITION: (
        "the condition `{expression}` of a {join} join cannot be evaluated by sqlengine's Python changelog join yet "
        "(comparisons, arithmetic, AND/OR/NOT, IS NULL, BETWEEN, IN, ABS, COALESCE, CASE and IF can; the JVM join, "
        "which runs a regular join on keys of one type each, not floating, without a state TTL, takes any "
        "condition but a user-defined function's call)"
    ),
    Code.DEDUP_PROCTIME_CHANGES: (
        "deduplication on processing time over an updating input has no meaning: a retraction has no arrival "
        "time to order by (Flink refuses it too)"
    ),
    Code.AFTER_CHANGELOG: (
        "{operator} cannot read the rows of a changelog operator ({below}): it runs as Spark's own operator, "
        "which takes no retractions"
    ),
    Code.SINK_TAKES_APPENDS: (
        "the {connector} connector only appends rows, but the query updates rows (upsert key: {key}); write the "
        "result to a table that takes updates, or make the query insert-only (e.g. a window aggregate instead of a "
        "group aggregate)"
    ),
    Code.WATERMARK_NOT_CONSTANT: "Only watermarks of the form `ts - INTERVAL ...` (or `ts`) run on Spark",
    Code.MATCH_RECOGNIZE: "MATCH_RECOGNIZE cannot run on Spark {what}",
    Code.TABLE_FUNCTION: (
        "table function `{name}` is declared as '{class_name}' ({language}): sqlengine runs JVM scalar functions "
        "only (Spark's UDF1..UDF22); Python table functions (LANGUAGE PYTHON, a generator) run"
    ),
    Code.UNNEST_SEVERAL: "UNNEST of several arrays at once is not supported yet",
    Code.LOOKUP_JOIN_KIND: "a lookup join is an inner or LEFT join",
    Code.TEMPORAL_JOIN_KIND: "an event-time temporal join is an inner or LEFT join (as in Flink), not {join}",
    Code.TEMPORAL_JOIN_NO_KEY: (
        "{right} is no versioned table: an event-time temporal join needs a primary key on it (PRIMARY KEY ... NOT "
        "ENFORCED, an upsert source's key, or a versioned view: the latest row per key by ROW_NUMBER() ... ORDER BY "
        "its event time DESC), as Flink does"
    ),
    Code.TEMPORAL_JOIN_NO_TIME: (
        "{right} is no versioned table: an event-time temporal join needs an event-time attribute on it (a column "
        "with a WATERMARK), the time each version is valid from, as Flink does"
    ),
    Code.TEMPORAL_JOIN_KEY_NOT_JOINED: (
        "the primary key ({key}) of the versioned table must be among the equalities of the temporal join's "
        "condition, as Flink requires"
    ),
    Code.TEMPORAL_JOIN_BATCH: (
        "an event-time temporal join in batch mode runs against an insert-only versioned table or a versioned view "
        "over one; {right} updates otherwise (Flink runs temporal joins in streaming mode only)"
    ),
    Code.SESSION_KEYS: (
        "a SESSION window runs on Spark only when it is partitioned by exactly the GROUP BY keys "
        "(SESSION(TABLE t PARTITION BY k, ...) ... GROUP BY k, window_start, window_end)"
    ),
    Code.WINDOW_NOT_CARRIED: (
        "the {what} needs the window of a window table function or window aggregation as its input, but "
        "`{window}` comes through {through}"
    ),
    Code.SESSION_TVF_USE: (
        "a SESSION window table function runs on Spark only under a window aggregation grouped by its "
        "window_start and window_end (Spark makes sessions while aggregating)"
    ),
    Code.USER_FUNCTION: (
        "user-defined function `{name}` cannot run on Spark: it is declared as '{class_name}' ({language}) "
        "without USING JAR, so there is no class to load; Python functions (LANGUAGE PYTHON) run, and JVM "
        "classes implementing Spark's UDF1..UDF22 from USING JAR 'path.jar'"
    ),
    Code.USER_AGGREGATE_RETRACT: (
        "the aggregate function `{function}` ('{target}') has no retract method, which it needs here: {what} (Flink's "
        "job fails there with \"Method retract is not implemented\")"
    ),
    Code.SESSION_MERGE: (
        "{function} in this event-time SESSION window cannot run yet: sqlengine's window operator runs it ({why}), "
        "merging the sessions a row bridges, and cannot merge {function}'s values (COUNT, SUM, AVG, MIN, MAX and "
        "Python aggregate functions with merge() it can)"
    ),
    Code.NO_COUNTERPART: "{function}() has no counterpart in Spark",
    Code.LITERAL_SEPARATOR: "{function} needs a literal separator to run on Spark",
    Code.DISTINCT_AGGREGATE: "{function}(DISTINCT ...) cannot run on Spark yet",
    Code.FUNCTION_DIFFERS: "{function} cannot give Flink's result on Spark: {reason}",
}

HINTS: dict[Code, str] = {
    Code.UPSERT_SOURCE: "SET 'execution.runtime-mode' = 'streaming', or read the topic with 'connector' = 'kafka'",
    Code.WINDOW_RANK_FUNCTION: "use ROW_NUMBER()",
    Code.OVER_NOT_ROWTIME: "use a ROWS frame, or ORDER BY one number or time column",
    Code.OVER_FUNCTION: "run it in batch mode (SET 'execution.runtime-mode' = 'batch'), where Spark's window functions compute it",
    Code.OVER_FUNCTION_STREAM: "run it in batch mode (SET 'execution.runtime-mode' = 'batch'), where Spark's window functions compute it",
    Code.OVER_RANK_TIES: "use ROW_NUMBER(), or COUNT(*) OVER (...) for Flink's streaming numbers; in batch mode RANK() runs",
    Code.OVER_SAME_WINDOW: "compute ROW_NUMBER() in a SELECT of its own, or run it in batch mode",
    Code.OVER_UPDATING_INPUT: "compute the OVER window on the rows before that operator, or order it by a column that is no time attribute",
    Code.SORT_NOT_TIME: "sort the results where they are read (ORDER BY is for bounded results)",
    Code.SORT_STREAMING: "sort the results where they are read (ORDER BY is for bounded results)",
    Code.WINDOW_AGG_UPDATING_INPUT: "aggregate an insert-only input (a window aggregation below emits final rows)",
    Code.UNION_UPDATING: "use UNION ALL, then SELECT DISTINCT over it",
    Code.JOIN_CONDITION: "join on the equality of keys, and filter the joined rows in WHERE",
    Code.TEMPORAL_JOIN_KEY_NOT_JOINED: "add `AND <left column> = <versioned table>.<key column>` for each key column to ON",
    Code.TEMPORAL_JOIN_NO_TIME: "declare WATERMARK FOR <time column> AS ... on the versioned table",
    Code.TEMPORAL_JOIN_BATCH: "SET 'execution.runtime-mode' = 'streaming'",
    Code.USER_FUNCTION: (
        "write it in Python (CREATE FUNCTION name AS 'module.function' LANGUAGE PYTHON), or give the jar of a "
        "class implementing Spark's UDF1..UDF22 (USING JAR 'path.jar'); see docs/udf.md"
    ),
    Code.TABLE_FUNCTION: "write it in Python as a generator: CREATE FUNCTION name AS 'module.function' LANGUAGE PYTHON",
    Code.DISTINCT_AGGREGATE: "use COUNT, SUM or AVG (DISTINCT), or GROUP BY the value first and aggregate the groups",
    Code.USER_AGGREGATE_RETRACT: "define retract(self, acc, ...) undoing what accumulate does for the same arguments",
    Code.SESSION_MERGE: (
        "compute it in a SESSION window of its own without Python aggregate functions, on a TIMESTAMP or in a zone "
        "without daylight saving time: Spark's session windows then run the built-in functions"
    ),
    Code.WATERMARK_NOT_CONSTANT: "write the watermark as WATERMARK FOR ts AS ts - INTERVAL '5' SECOND",
    Code.LITERAL_SEPARATOR: "give the separator as a string literal",
    Code.MATCH_RECOGNIZE: (
        "DEFINE runs any function of one row's values (UPPER(A.name), A.name LIKE 'a%'), and across several rows "
        "comparisons, arithmetic, AND/OR/NOT, IS NULL, BETWEEN, IN, ABS, COALESCE, CASE and IF over column references, "
        "FIRST/LAST/PREV and "
        "COUNT/SUM/AVG/MIN/MAX; MEASURES run any function. Compare a function of one row's values with another "
        "row's (UPPER(A.name) = UPPER(B.name)) instead"
    ),
}
