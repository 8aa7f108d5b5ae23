-- Native: a hopping window.
SELECT window_start, window_end, COUNT(*) AS n, COUNT(DISTINCT bidder) AS bidders
FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND, INTERVAL '30' SECOND))
GROUP BY window_start, window_end
