-- zone: Asia/Kolkata
-- Native: a day's tumbling window on a TIMESTAMP_LTZ, aligned to the zone's midnight (UTC+05:30);
-- window_start and window_end are the zone's wall times, window_time an instant written there.
SELECT auction, window_start, window_end, CAST(window_time AS STRING) AS wt, COUNT(*) AS n, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE bids_ltz, DESCRIPTOR(lts), INTERVAL '1' DAY))
GROUP BY auction, window_start, window_end, window_time
