-- Changelog operator (MATCH_RECOGNIZE): an optional first variable and a bounded greedy loop ({2,3},
-- which keeps a row it can take from C), AFTER MATCH SKIP TO LAST B.
SELECT *
FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        FIRST(A.ts) AS start_ts,
        COUNT(B.price) AS bs,
        COUNT(C.price) AS cs,
        LAST(D.price) AS d_price,
        MAX(B.price) AS b_high
    ONE ROW PER MATCH
    AFTER MATCH SKIP TO LAST B
    PATTERN (A? B{2,3} C D)
    DEFINE
        A AS A.price < 60,
        B AS B.price >= 60,
        C AS C.price < 100,
        D AS D.price IS NOT NULL
)
