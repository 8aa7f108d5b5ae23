-- Changelog operator, then an OVER window on MATCH_ROWTIME(): per auction, the rises of its
-- matches over the 10 seconds before each (RANGE), each match's row once the watermark passes it.
-- flink batch mode cannot run this: Flink 2.3 fails to compile it ("Cannot cast TimestampData to java.lang.Long")
SELECT auction, CAST(rt AS STRING) AS rt, rise,
       SUM(rise) OVER w AS recent, COUNT(*) OVER w AS n
FROM rises
WINDOW w AS (PARTITION BY auction ORDER BY rt RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW)
