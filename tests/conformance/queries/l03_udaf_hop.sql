-- A Python aggregate function in a HOP window aggregation, with a FILTER clause.
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT channel, window_start, window_end, wavg(price, bidder) FILTER (WHERE price > 10) AS weighted, COUNT(*) AS n
FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
GROUP BY channel, window_start, window_end
