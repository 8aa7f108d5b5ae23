-- A scalar subquery in WHERE: bids above the average price, re-evaluated as the average moves
-- (a join with the one row of a global aggregation).
SELECT auction, bidder, price FROM bids
WHERE price > (SELECT AVG(price) FROM bids)
