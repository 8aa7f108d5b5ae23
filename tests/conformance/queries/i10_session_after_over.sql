-- Changelog operators: an OVER aggregation on event time, then session windows per auction on its time, on
-- sqlengine's window operator (sessions merge as the OVER's rows come out with the watermark).
-- flink batch mode cannot run this: its batch planner has no SESSION window table function
SELECT auction, window_start, window_end, COUNT(*) AS n, MAX(s) AS top
FROM TABLE(SESSION(TABLE over_sums PARTITION BY auction, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end
