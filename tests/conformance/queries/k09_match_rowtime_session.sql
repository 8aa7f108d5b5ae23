-- Changelog operator, then sqlengine's window operator: sessions of matches per auction by
-- MATCH_ROWTIME() (a rise right after a bid), 4 seconds apart at most.
-- flink batch mode cannot run this: Unaligned windows like session are not supported in batch mode yet
SELECT auction, window_start, window_end, COUNT(*) AS n, MAX(rise) AS top
FROM TABLE(SESSION(TABLE rises PARTITION BY auction, DESCRIPTOR(rt), INTERVAL '4' SECOND))
GROUP BY auction, window_start, window_end
