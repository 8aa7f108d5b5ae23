-- HAVING that an update leaves: an auction is in the result while it has fewer than 12 bids and
-- is deleted with its twelfth (Spark's update mode would keep the last row that passed).
SELECT auction, COUNT(*) AS n, MAX(price) AS top
FROM bids
GROUP BY auction
HAVING COUNT(*) < 12
