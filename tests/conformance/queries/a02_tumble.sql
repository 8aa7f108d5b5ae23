-- Native: a tumbling event-time window.
SELECT auction, window_start, window_end, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '20' SECOND))
GROUP BY auction, window_start, window_end
