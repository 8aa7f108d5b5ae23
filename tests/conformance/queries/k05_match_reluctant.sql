-- Changelog operator (MATCH_RECOGNIZE): a reluctant B+? lets C end the match as soon as it can;
-- AFTER MATCH SKIP TO FIRST B; MATCH_ROWTIME, FIRST with an offset, SUM, and PREV (the row
-- before, in the match) in DEFINE.
SELECT *
FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        A.price AS a_price,
        FIRST(B.price, 1) AS second_b,
        SUM(B.price) AS b_total,
        LAST(B.price) AS last_b,
        MATCH_ROWTIME() AS match_time
    ONE ROW PER MATCH
    AFTER MATCH SKIP TO FIRST B
    PATTERN (A B+? C)
    DEFINE
        A AS A.price < 100,
        B AS B.price >= 40,
        C AS C.price < PREV(price) - 10
)
