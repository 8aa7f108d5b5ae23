-- Changelog operator (OVER, event time): each bid with the sum, count and lowest price of its
-- auction's last three bids (ROWS frame), emitted as the watermark passes it.
SELECT auction, ts, price,
       SUM(price) OVER w AS last3_total, COUNT(price) OVER w AS last3_priced, MIN(price) OVER w AS last3_low
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
