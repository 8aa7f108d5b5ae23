-- zone: America/Los_Angeles
-- Native, on the wall clock: day windows from midnight to midnight there, 23 hours in March and
-- 25 in November.
SELECT window_start, window_end, TIMESTAMPDIFF(SECOND, TO_TIMESTAMP_LTZ(0, 3), window_time) AS wt_seconds,
       COUNT(*) AS n, SUM(clicks) AS total
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(lts), INTERVAL '1' DAY))
GROUP BY window_start, window_end, window_time
