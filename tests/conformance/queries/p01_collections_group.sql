-- ARRAY_AGG (NULLs kept unless IGNORE NULLS), COLLECT (a multiset) and JSON_OBJECTAGG
-- (keys sorted, NULL values kept) in a native group aggregation; arrays sorted or counted where
-- the order rows arrive in across files is no engine's promise.
SELECT auction, CARDINALITY(ARRAY_AGG(price)) AS n, CAST(ARRAY_SORT(ARRAY_AGG(channel)) AS STRING) AS channels,
       COLLECT(channel) AS per_channel,
       CARDINALITY(ARRAY_AGG(NULLIF(channel, 'app'))) AS with_nulls,
       CARDINALITY(ARRAY_AGG(NULLIF(channel, 'app')) IGNORE NULLS) AS without_nulls,
       JSON_OBJECTAGG(KEY CONCAT(COALESCE(channel, '-'), ':', CAST(price AS STRING)) VALUE CASE WHEN price > 200 THEN price END) AS by_price
FROM (SELECT DISTINCT auction, price, channel FROM bids WHERE auction < 5)
GROUP BY auction
