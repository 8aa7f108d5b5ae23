-- Changelog operator (event-time temporal join, LEFT): each bid with its channel's fee at its
-- time where the bid reaches that version's minimum price; the others padded with NULLs.
-- flink batch mode cannot run this: Flink runs event-time temporal joins in streaming mode only
SELECT b.ts, b.bidder, b.price, b.channel, f.fee, f.min_price
FROM bids AS b
LEFT JOIN fees FOR SYSTEM_TIME AS OF b.ts AS f ON b.channel = f.channel AND b.price >= f.min_price
