-- Native: a cumulating window.
SELECT channel, window_start, window_end, COUNT(*) AS n, MIN(price) AS low
FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(ts), INTERVAL '15' SECOND, INTERVAL '60' SECOND))
GROUP BY channel, window_start, window_end
