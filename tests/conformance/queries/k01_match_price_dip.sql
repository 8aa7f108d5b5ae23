-- Changelog operator (MATCH_RECOGNIZE, event time): periods of a falling price per auction, then
-- a rise (Nexmark CEP q0's pattern), AFTER MATCH SKIP TO LAST of the rise; rows wait for the
-- watermark and run through the pattern in time order.
SELECT auction, start_ts, bottom_ts, end_ts, start_price, bottom_price
FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        START_ROW.ts AS start_ts,
        LAST(DOWN.ts) AS bottom_ts,
        LAST(UP.ts) AS end_ts,
        START_ROW.price AS start_price,
        LAST(DOWN.price) AS bottom_price
    ONE ROW PER MATCH
    AFTER MATCH SKIP TO LAST UP
    PATTERN (START_ROW DOWN+ UP)
    DEFINE
        DOWN AS (LAST(DOWN.price, 1) IS NULL AND DOWN.price < START_ROW.price) OR DOWN.price < LAST(DOWN.price, 1),
        UP AS UP.price > LAST(DOWN.price, 1)
)
