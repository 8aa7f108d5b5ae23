-- Python aggregate functions in an event-time window aggregation (TUMBLE): each window emitted
-- once the watermark passes it, late rows dropped (sqlengine's window operator, as Spark's own
-- window aggregation cannot call Python).
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT auction, window_start, window_end, wavg(price, bidder) AS weighted, spread(price) AS spread
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY auction, window_start, window_end
