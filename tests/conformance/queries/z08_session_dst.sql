-- zone: America/Los_Angeles
-- Changelog operator: sessions with a 40-minute gap join rows on the wall clock, as Flink's do:
-- user "d"'s clicks at 01:20 and 01:10 (the repeated hour's first and second) are one session,
-- though 50 minutes apart in time; Spark's session windows, on instants, would make two.
-- flink batch mode cannot run this: Unaligned windows like session are not supported in batch mode yet
SELECT who, window_start, window_end, TIMESTAMPDIFF(SECOND, TO_TIMESTAMP_LTZ(0, 3), window_time) AS wt_seconds,
       COUNT(*) AS n, SUM(clicks) AS total
FROM TABLE(SESSION(TABLE taps PARTITION BY who, DESCRIPTOR(lts), INTERVAL '40' MINUTE))
GROUP BY who, window_start, window_end, window_time
