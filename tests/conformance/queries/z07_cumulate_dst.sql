-- zone: America/Los_Angeles
-- Native, on the wall clock: cumulating windows of up to a day by two hours, from midnight there.
SELECT window_start, window_end, COUNT(*) AS n, SUM(clicks) AS total
FROM TABLE(CUMULATE(TABLE taps, DESCRIPTOR(lts), INTERVAL '2' HOUR, INTERVAL '1' DAY))
GROUP BY window_start, window_end
