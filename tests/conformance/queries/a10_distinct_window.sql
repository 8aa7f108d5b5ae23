-- Native: SELECT DISTINCT over a window TVF's bounds is a window aggregation without aggregates
-- (Flink plans it as one; each window's rows leave when it ends).
SELECT DISTINCT window_start, window_end, auction
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '20' SECOND))
