-- Native: a window aggregation over the window aggregation that SELECT DISTINCT of a window's
-- bounds is (bidders per auction window, then auctions per window).
SELECT window_start, window_end, COUNT(*) AS auctions
FROM (
    SELECT DISTINCT window_start, window_end, auction
    FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '20' SECOND))
)
GROUP BY window_start, window_end
