-- Changelog operator (group aggregation over updates): STDDEV and VARIANCE of each channel's
-- auctions' top prices; a higher bid retracts its auction's old top, which leaves the sums.
SELECT channel,
       VAR_SAMP(top) AS v_samp, STDDEV_POP(top) AS sd_pop,
       VAR_POP(CAST(top AS DOUBLE) / 3) AS v_double, STDDEV_SAMP(CAST(top AS DECIMAL(14, 3))) AS sd_decimal
FROM (SELECT channel, auction, MAX(price) AS top FROM bids GROUP BY channel, auction)
GROUP BY channel
