-- Changelog operators: MATCH_RECOGNIZE with functions of one row in DEFINE and MEASURES (LIKE, CHAR_LENGTH, UPPER,
-- CASE, COALESCE): Spark computes them per input row before the match, and the operator reads them
-- as that row's values (PREV and FIRST of them too).
SELECT * FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        FIRST(A.price) AS first_price,
        UPPER(COALESCE(LAST(A.channel), 'none')) AS last_channel,
        CASE WHEN B.price > 100 THEN 'big' ELSE 'small' END AS size,
        CHAR_LENGTH(B.channel) AS b_len,
        MATCH_ROWTIME() AS rt
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A+ B)
    DEFINE
        A AS A.channel LIKE '%a%' OR A.channel IS NULL,
        B AS B.price > A.price AND CHAR_LENGTH(COALESCE(B.channel, '')) <> CHAR_LENGTH(COALESCE(PREV(channel), ''))
)
