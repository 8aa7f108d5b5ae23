-- COUNT(DISTINCT) and FILTER clauses over an append-only input.
SELECT channel, COUNT(DISTINCT bidder) AS bidders, COUNT(*) FILTER (WHERE price > 100) AS big,
       SUM(price) FILTER (WHERE bidder < 8) AS low_bidders
FROM bids GROUP BY channel
