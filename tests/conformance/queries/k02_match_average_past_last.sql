-- Changelog operator (MATCH_RECOGNIZE): the longest runs of bids whose running average stays
-- under 100 (a greedy A+, so B takes the first bid that lifts it), AFTER MATCH SKIP PAST LAST ROW
-- (Nexmark CEP q1's shape).
SELECT *
FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        FIRST(A.ts) AS start_ts,
        LAST(A.ts) AS end_ts,
        AVG(A.price) AS avg_price,
        COUNT(A.price) AS priced,
        COUNT(*) AS taken,
        B.price AS breaking_price
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A+ B)
    DEFINE
        A AS AVG(A.price) < 100
)
