-- zone: America/Los_Angeles
-- Native, on the wall clock: the user with the most clicks in each hour (a window Top-N over the
-- hourly windows, the repeated hour's rows together).
SELECT window_start, window_end, who, total FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC, who) AS rn FROM (
        SELECT window_start, window_end, who, SUM(clicks) AS total
        FROM TABLE(TUMBLE(TABLE taps, DESCRIPTOR(lts), INTERVAL '1' HOUR))
        GROUP BY window_start, window_end, who
    )
) WHERE rn <= 1
