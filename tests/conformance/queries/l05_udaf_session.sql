-- Python aggregate functions in an event-time SESSION window (per bidder, 10 s gap): sessions
-- merge when a row bridges two of them, each emitted once the watermark passes its end, late
-- rows dropped (sqlengine's window operator keeps each open session's rows and aggregates them
-- when it closes).
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT bidder, window_start, window_end, wavg(price, auction) AS weighted, spread(price) AS spread, COUNT(*) AS bids
FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end
