-- Changelog operator (MATCH_RECOGNIZE): as k02, AFTER MATCH SKIP TO NEXT ROW (Nexmark CEP q2):
-- overlapping matches, one per starting bid.
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
    AFTER MATCH SKIP TO NEXT ROW
    PATTERN (A+ B)
    DEFINE
        A AS AVG(A.price) < 100
)
