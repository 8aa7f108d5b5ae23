-- Changelog operator (group aggregation over updates): ARRAY_AGG, COLLECT, JSON_ARRAYAGG and
-- JSON_OBJECTAGG of each channel's auctions' top prices; a higher bid retracts its auction's old
-- top (the earliest equal value, or the key's entry) before the new one comes. JSON_ARRAYAGG of
-- the channel (NULL for one group: absent, or null with NULL ON NULL) counts the live rows.
SELECT channel, CAST(ARRAY_SORT(ARRAY_AGG(top)) AS STRING) AS tops, COLLECT(top / 100) AS hundreds,
       JSON_OBJECTAGG(KEY CAST(auction AS STRING) VALUE top) AS by_auction,
       JSON_ARRAYAGG(channel) AS names, JSON_ARRAYAGG(channel NULL ON NULL) AS names_or_nulls
FROM (SELECT channel, auction, MAX(price) AS top FROM bids GROUP BY channel, auction)
GROUP BY channel
