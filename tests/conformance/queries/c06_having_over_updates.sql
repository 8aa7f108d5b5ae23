-- HAVING over an aggregation of an aggregation (rows enter and leave the result).
SELECT n, COUNT(*) AS auctions FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction)
GROUP BY n HAVING COUNT(*) > 1
