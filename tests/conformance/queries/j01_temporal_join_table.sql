-- Changelog operator (event-time temporal join): each bid with the fee of its channel valid at
-- the bid's time, from a versioned table (primary key and watermark); bids before their channel's
-- first fee, and bids without a channel, find none and are dropped.
-- flink batch mode cannot run this: Flink runs event-time temporal joins in streaming mode only
SELECT b.ts, b.auction, b.price, b.channel, f.fee, f.ts AS fee_since
FROM bids AS b
JOIN fees FOR SYSTEM_TIME AS OF b.ts AS f ON b.channel = f.channel
