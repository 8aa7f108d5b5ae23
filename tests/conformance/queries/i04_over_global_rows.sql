-- Changelog operator (OVER, event time): without PARTITION BY, the last four bids of the whole
-- stream above a price, by event time.
SELECT ts, auction, price, AVG(CAST(price AS DOUBLE)) OVER (ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS moving_avg
FROM bids
WHERE price > 20
