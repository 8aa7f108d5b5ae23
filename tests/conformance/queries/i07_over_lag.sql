-- Changelog operator (OVER, event time): each bid with its auction's bid before it (price and
-- channel, NULL while there is none), the bidder two bids before (-1 while there is none) and
-- the price two bids before or, while there is none, the bid's own (LAG, Flink's LagAggFunction:
-- its window takes the bids of one time together, so tied bids get the same). A literal default
-- is given only for a column without NULLs: Flink 2.3 returns -1 or '' for a NULL value then
-- (docs/semantics.md).
SELECT auction, ts, price,
       LAG(price) OVER w AS previous_price,
       LAG(channel) OVER w AS previous_channel,
       LAG(bidder, 2, CAST(-1 AS BIGINT)) OVER w AS bidder_two_before,
       LAG(price, 2, price) OVER w AS price_two_before
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY ts)
