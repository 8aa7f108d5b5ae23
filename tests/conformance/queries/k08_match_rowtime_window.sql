-- Changelog operators: a MATCH_RECOGNIZE, then sqlengine's window operator: MATCH_ROWTIME() is a time attribute (the time of a
-- match's last row), and a tumbling window counts the matches of each 10 seconds by it, each
-- window emitted once the watermark passes it (after the matches in it came out).
SELECT window_start, window_end, COUNT(*) AS n, SUM(rise) AS total
FROM TABLE(TUMBLE(TABLE rises, DESCRIPTOR(rt), INTERVAL '10' SECOND))
GROUP BY window_start, window_end
