-- Changelog operators: MATCH_RECOGNIZE DEFINE conditions calling ABS, COALESCE, CASE and IF over several rows'
-- values: the operator evaluates them as it tries each row.
SELECT * FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES A.price AS a_price, B.price AS b_price, C.price AS c_price, MATCH_ROWTIME() AS rt
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A B C)
    DEFINE
        B AS ABS(B.price - A.price) BETWEEN 5 AND 60 AND COALESCE(B.channel, A.channel, 'none') <> 'partner',
        C AS C.price > CASE WHEN A.price > B.price THEN A.price ELSE B.price END
            AND IF(COALESCE(C.channel, '') = COALESCE(A.channel, ''), 1, 0) = 0
)
