-- zone: America/Los_Angeles
-- Changelog operator on the wall clock: a Python aggregate function in two-hour windows across both
-- changes (the window operator closes each at the instant of its end there).
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT who, window_start, window_end, wavg(clicks, clicks) AS weighted, spread(clicks) AS spread
FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(lts), INTERVAL '2' HOUR))
GROUP BY who, window_start, window_end
