-- Changelog operator (OVER, event time): each bid with its bidder's bids of the 10 seconds
-- before it (RANGE frame): their count, integer average (Flink's AVG of a BIGINT truncates)
-- and highest price.
-- flink batch mode cannot run this: its RANGE frame over a TIMESTAMP fails to compile (Flink 2.3.0,
-- "Cannot cast TimestampData to java.lang.Long" in RangeBoundComparator); sqlengine runs it in both.
SELECT bidder, ts, price,
       COUNT(*) OVER (PARTITION BY bidder ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS n10,
       AVG(price) OVER (PARTITION BY bidder ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS avg10,
       MAX(price) OVER (PARTITION BY bidder ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) AS max10
FROM bids
