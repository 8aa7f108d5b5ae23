-- Changelog operators: MATCH_RECOGNIZE with an optional variable: a measure calling functions of a row the match may
-- lack (B?) is computed on its NULLs, as Flink computes it (COALESCE gives 'none', not NULL).
SELECT * FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        COALESCE(UPPER(B.channel), 'none') AS b_channel,
        CASE WHEN B.price IS NULL THEN -1 ELSE B.price END AS b_price,
        CONCAT(COALESCE(A.channel, '-'), '/', COALESCE(B.channel, '-'), '/', COALESCE(C.channel, '-')) AS path,
        MATCH_ROWTIME() AS rt
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A B? C)
    DEFINE
        B AS B.price BETWEEN A.price AND A.price + 20,
        C AS C.price > A.price + 20
)
