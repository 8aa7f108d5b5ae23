-- Changelog operator (OVER on event time): STDDEV and VARIANCE over a ROWS frame of the three
-- bids before each; a row leaving the frame is taken back out of the sums.
SELECT auction, ts, price,
       STDDEV_SAMP(price) OVER f AS sd_frame, VAR_POP(CAST(price AS DECIMAL(10, 1))) OVER f AS v_frame,
       STDDEV_POP(CAST(price AS DOUBLE)) OVER f AS sd_double
FROM bids
WINDOW f AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)
