-- Changelog operators: an OVER aggregation on event time, then a tumbling window on its time, which stays a time
-- attribute (as in Flink): the OVER emits each row once the watermark passes it, so the window
-- operator takes every row it emits and closes each window on the watermark.
SELECT window_start, window_end, COUNT(*) AS n, SUM(s) AS total, MAX(s) AS top
FROM TABLE(TUMBLE(TABLE over_sums, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end
