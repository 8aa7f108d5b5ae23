-- Group aggregation over an append-only input.
SELECT auction, COUNT(*) AS n, COUNT(price) AS priced, SUM(price) AS total, MIN(price) AS low,
       MAX(price) AS high, AVG(price) AS mean
FROM bids GROUP BY auction
