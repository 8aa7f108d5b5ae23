-- STDDEV and VARIANCE in a TUMBLE window on event time (a native window aggregation).
SELECT auction, window_start, window_end,
       STDDEV_POP(price) AS sd_pop, VAR_SAMP(CAST(price AS DOUBLE)) AS v_samp, STDDEV(CAST(price AS DECIMAL(10, 2))) AS sd_decimal
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end
