-- Python aggregate functions in a group aggregation of an append-only input: a weighted average
-- and a spread per auction, beside a built-in COUNT (udfs/conformance_aggs.py).
-- flink batch mode cannot run this: Flink's batch mode runs only pandas aggregate functions
SELECT auction, wavg(price, bidder) AS weighted, spread(price) AS spread, COUNT(*) AS n
FROM bids
GROUP BY auction
