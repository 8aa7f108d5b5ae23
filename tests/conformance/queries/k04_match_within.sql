-- Changelog operator (MATCH_RECOGNIZE): a bid, then bids not far below it, then one more than 50
-- below it, all within 5 seconds (Nexmark CEP q3): partial matches time out with the watermark.
SELECT auction, first_ts, drop_ts, drop_diff, steady
FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        A.ts AS first_ts,
        C.ts AS drop_ts,
        A.price - C.price AS drop_diff,
        COUNT(B.price) AS steady
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A B* C) WITHIN INTERVAL '5' SECOND
    DEFINE
        B AS B.price > A.price - 50,
        C AS C.price < A.price - 50
)
