-- zone: America/Los_Angeles
-- Native, on the wall clock: three-hour windows every hour across both changes.
SELECT who, window_start, window_end, COUNT(*) AS n, MAX(clicks) AS top
FROM TABLE(HOP(TABLE taps, DESCRIPTOR(lts), INTERVAL '1' HOUR, INTERVAL '3' HOUR))
GROUP BY who, window_start, window_end
