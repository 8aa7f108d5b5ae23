-- STDDEV and VARIANCE as Flink computes them (sums of x and x * x, every step in the result's
-- type): an integer column's in integer arithmetic, a DOUBLE's, a DECIMAL's as DECIMAL(38, 6);
-- STDDEV and VARIANCE are the sample forms. A native aggregation.
SELECT channel,
       STDDEV_POP(price) AS sd_pop, STDDEV_SAMP(price) AS sd_samp, VAR_POP(price) AS v_pop, VARIANCE(price) AS v_samp,
       STDDEV(CAST(price AS DOUBLE) / 7) AS sd_double, VAR_POP(CAST(price AS DOUBLE) / 7) AS v_double,
       STDDEV_POP(CAST(price AS DECIMAL(12, 2))) AS sd_decimal, VAR_SAMP(CAST(price AS DECIMAL(12, 2))) AS v_decimal
FROM bids
GROUP BY channel
