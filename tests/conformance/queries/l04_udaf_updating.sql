-- A Python aggregate function over an updating input: each count's update retracts its old
-- value (the function's retract) and accumulates the new one.
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT channel, wavg(n, top) AS weighted
FROM (SELECT channel, auction, COUNT(*) AS n, MAX(price) AS top FROM bids GROUP BY channel, auction)
GROUP BY channel
