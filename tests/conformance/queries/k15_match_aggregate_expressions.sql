-- Changelog operators: MATCH_RECOGNIZE aggregates of expressions of one pattern variable's columns, as Flink allows
-- them (SUM(A.price * 2), AVG of a CAST, MAX of a function), in MEASURES and in DEFINE: each row's
-- value is computed before the match, and the operator aggregates it over the variable's rows.
SELECT * FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        COUNT(A.price) AS n,
        SUM(A.price * 2) AS doubled,
        AVG(CAST(A.price AS DOUBLE) / 4) AS quarter_avg,
        MAX(CHAR_LENGTH(COALESCE(A.channel, ''))) AS longest,
        MIN(price - 1) AS lowest,
        B.price AS last_price
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (A+ B)
    DEFINE
        A AS SUM(A.price * 2) < 600,
        B AS B.price > 2 * MAX(A.price)
)
