-- Changelog operators: MATCH_RECOGNIZE measures that are functions of several rows' values (CONCAT, COALESCE,
-- CASE, TIMESTAMPDIFF across variables): the match emits the values each reads, and Spark computes
-- the measure from them after the match.
SELECT * FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        CONCAT(COALESCE(A.channel, '?'), '>', COALESCE(B.channel, '?'), '>', COALESCE(C.channel, '?')) AS path,
        COALESCE(A.channel, B.channel, C.channel) AS some_channel,
        CASE WHEN C.price > 2 * A.price THEN 'jump' ELSE CAST(C.price - B.price AS STRING) END AS step,
        TIMESTAMPDIFF(SECOND, A.ts, C.ts) AS seconds,
        MATCH_ROWTIME() AS rt
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A B C)
    DEFINE
        B AS B.price > A.price,
        C AS C.price > B.price
)
