-- Changelog operator (OVER, event time): a running total per channel (NULL channels are one
-- partition) from the first bid on: RANGE UNBOUNDED PRECEDING, Flink's default frame.
SELECT channel, ts, price,
       SUM(price) OVER (PARTITION BY channel ORDER BY ts) AS running_total,
       MIN(price) OVER (PARTITION BY channel ORDER BY ts) AS lowest_so_far
FROM bids
