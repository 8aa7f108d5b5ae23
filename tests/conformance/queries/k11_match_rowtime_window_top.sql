-- Changelog operators: a MATCH_RECOGNIZE, then a window Top-N on its MATCH_ROWTIME() (sqlengine's
-- window ranking, on event time: Spark's own cannot read a changelog operator's rows): the two
-- largest rises of each 10 seconds, each window once the watermark passes it.
SELECT window_start, window_end, auction, rise, rn FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY rise DESC, auction, rt) AS rn
    FROM TABLE(TUMBLE(TABLE rises, DESCRIPTOR(rt), INTERVAL '10' SECOND))
) WHERE rn <= 2
