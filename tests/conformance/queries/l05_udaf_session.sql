-- Python aggregate functions in an event-time SESSION window (per bidder, 3 s gap): sessions
-- merge when an out-of-order row bridges two of them (three rows of this data do), their
-- accumulators merged (the functions' merge); each session emitted once the watermark passes its
-- end, late rows dropped (sqlengine's window operator, as Spark's cannot call Python).
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT bidder, window_start, window_end, wavg(price, auction) AS weighted, spread(price) AS spread, COUNT(*) AS bids
FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '3' SECOND))
GROUP BY bidder, window_start, window_end
