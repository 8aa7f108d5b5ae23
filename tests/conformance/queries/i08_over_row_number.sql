-- Changelog operator (OVER, event time): each bid numbered among its bidder's bids in time order
-- (ROW_NUMBER without a Top-N filter: Flink numbers rows one after another, a ROWS frame).
SELECT bidder, ts, price, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts) AS nth
FROM bids
