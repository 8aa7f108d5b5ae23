-- Changelog operator, then Spark's window: MATCH_ROWTIME() is a time attribute (the time of a
-- match's last row), and a tumbling window counts the matches of each 10 seconds by it, each
-- window emitted once the watermark passes it (after the matches in it came out).
WITH rises AS (
    SELECT * FROM bids
    MATCH_RECOGNIZE (
        PARTITION BY auction
        ORDER BY ts
        MEASURES UP.price - START_ROW.price AS rise, MATCH_ROWTIME() AS rt
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (START_ROW UP)
        DEFINE UP AS UP.price > START_ROW.price
    )
)
SELECT window_start, window_end, COUNT(*) AS n, SUM(rise) AS total
FROM TABLE(TUMBLE(TABLE rises, DESCRIPTOR(rt), INTERVAL '10' SECOND))
GROUP BY window_start, window_end
