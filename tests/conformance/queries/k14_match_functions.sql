-- Changelog operators: MATCH_RECOGNIZE with functions of one row in DEFINE and MEASURES (LIKE, CHAR_LENGTH, UPPER,
-- CASE, COALESCE): in DEFINE, Spark computes a function of the row tried before the match, and the
-- operator reads it as that row's value; a measure it cannot evaluate, Spark computes after the
-- match from the values it reads.
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
        B AS B.price > A.price AND CHAR_LENGTH(COALESCE(B.channel, '')) >= 3
)
