-- Changelog operator (event-time temporal join over a versioned view): the latest fee per
-- channel by ROW_NUMBER (Flink's versioned view: keep-last deduplication on the event time),
-- each bid with the version valid at its time, LEFT (no version: NULLs).
-- flink batch mode cannot run this: Flink runs event-time temporal joins in streaming mode only
SELECT b.ts, b.auction, b.channel, b.price * v.fee AS charged, v.ts AS fee_since
FROM bids AS b
LEFT JOIN versioned_fees FOR SYSTEM_TIME AS OF b.ts AS v ON b.channel = v.channel
