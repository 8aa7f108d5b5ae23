-- JSON_ARRAYAGG of strings, NULLs (absent, or null with NULL ON NULL), doubles and decimals in a
-- native group aggregation (each group's values are equal, so their order is no matter).
SELECT auction, price, channel,
       JSON_ARRAYAGG(channel) AS names, JSON_ARRAYAGG(channel NULL ON NULL) AS names_or_nulls,
       JSON_ARRAYAGG(CAST(price AS DOUBLE) / 8) AS eighths, JSON_ARRAYAGG(CAST(price AS DECIMAL(10, 2))) AS decimals
FROM bids
GROUP BY auction, price, channel
