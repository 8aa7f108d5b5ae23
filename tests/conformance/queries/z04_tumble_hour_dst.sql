-- zone: America/Los_Angeles
-- Native, on the wall clock: hourly windows on a TIMESTAMP_LTZ across both daylight saving time
-- changes. The autumn's repeated hour 01:00-02:00 is one window with the rows of both instant
-- hours; window_time is the first instant of its last wall instant (seconds since 1970 tell them apart).
SELECT who, window_start, window_end, CAST(window_time AS STRING) AS wt,
       TIMESTAMPDIFF(SECOND, TO_TIMESTAMP_LTZ(0, 3), window_time) AS wt_seconds, COUNT(*) AS n, SUM(clicks) AS total
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(lts), INTERVAL '1' HOUR))
GROUP BY who, window_start, window_end, window_time
