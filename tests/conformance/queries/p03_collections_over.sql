-- Changelog operator (OVER on event time): ARRAY_AGG and COLLECT over a ROWS frame of the two bids
-- before each, in time order; a row leaving the frame is taken back.
SELECT auction, ts, price,
       CAST(ARRAY_AGG(channel) OVER w AS STRING) AS channels, CAST(ARRAY_AGG(price) OVER w AS STRING) AS prices,
       COLLECT(channel) OVER w AS per_channel
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
