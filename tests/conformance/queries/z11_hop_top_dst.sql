-- zone: America/Los_Angeles
-- Native, on the wall clock: the top user of each three-hour window every hour (window Top-N over
-- a window aggregation). On 14 March the windows ending at 03:00 and at 04:00 close at the same
-- instant (03:00 does not happen there); each is ranked on its own.
SELECT window_start, window_end, who, total FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC, who) AS rn FROM (
        SELECT window_start, window_end, who, SUM(clicks) AS total
        FROM TABLE(HOP(TABLE taps, DESCRIPTOR(lts), INTERVAL '1' HOUR, INTERVAL '3' HOUR))
        GROUP BY window_start, window_end, who
    )
) WHERE rn <= 1
