-- zone: Asia/Kolkata
-- Native: hopping windows of an hour every half hour on a TIMESTAMP_LTZ, on the zone's half
-- hours (a legacy GROUP BY TUMBLE on a TIMESTAMP_LTZ fails in Flink 2.3: "Unknown window type").
SELECT channel, window_start, window_end, COUNT(*) AS n, MAX(price) AS top
FROM TABLE(HOP(TABLE bids_ltz, DESCRIPTOR(lts), INTERVAL '30' MINUTE, INTERVAL '1' HOUR))
GROUP BY channel, window_start, window_end
