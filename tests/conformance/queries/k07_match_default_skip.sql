-- Changelog operator (MATCH_RECOGNIZE): no AFTER MATCH clause (Flink's default is SKIP TO NEXT
-- ROW), an optional first variable, PREV two rows back, and an unqualified aggregate (every row
-- of the match so far) in DEFINE.
SELECT *
FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES
        FIRST(ts) AS start_ts,
        LAST(ts) AS end_ts,
        A.price AS a_price,
        SUM(price) AS total,
        MATCH_ROWTIME() AS match_time
    PATTERN (A? B C{2})
    DEFINE
        A AS A.price < 30,
        B AS PREV(price) IS NULL OR B.price > PREV(price),
        C AS PREV(price, 2) IS NOT NULL AND SUM(price) < 400
)
