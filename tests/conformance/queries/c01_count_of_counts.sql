-- Aggregation of an aggregation: how many bidders made each number of bids.
SELECT n, COUNT(*) AS bidders FROM (SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder) GROUP BY n
