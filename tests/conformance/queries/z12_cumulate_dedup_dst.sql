-- zone: America/Los_Angeles
-- Native, on the wall clock: each user's last click in cumulating windows of up to a day by the
-- hour (window deduplication on the window TVF's rows), across both changes; the windows ending at
-- 03:00 and 04:00 on 14 March close at one instant and stay apart.
SELECT window_start, window_end, who, CAST(lts AS STRING) AS at_time, clicks FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, who ORDER BY lts DESC) AS rn
    FROM TABLE(CUMULATE(TABLE taps, DESCRIPTOR(lts), INTERVAL '1' HOUR, INTERVAL '1' DAY))
) WHERE rn = 1
