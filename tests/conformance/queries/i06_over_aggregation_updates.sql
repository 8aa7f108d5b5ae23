-- Changelog operator (OVER over changes) over an updating input: a running total of bids per
-- bidder, in bidder order, over a group aggregation whose counts update.
SELECT bidder, n, SUM(n) OVER (ORDER BY bidder) AS running_total
FROM (SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder)
