-- zone: Asia/Kolkata
-- Native: cumulating windows of up to a day by the hour on a TIMESTAMP_LTZ, from the zone's midnight.
SELECT window_start, window_end, COUNT(*) AS n, SUM(price) AS total
FROM TABLE(CUMULATE(TABLE bids_ltz, DESCRIPTOR(lts), INTERVAL '1' HOUR, INTERVAL '1' DAY))
GROUP BY window_start, window_end
