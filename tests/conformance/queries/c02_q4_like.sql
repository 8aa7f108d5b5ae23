-- Nexmark q4's shape: the average of each auction's highest bid, per category.
SELECT category, AVG(top) AS avg_top, COUNT(*) AS auctions FROM (
  SELECT a.id, a.category, MAX(b.price) AS top
  FROM auctions a JOIN bids b ON a.id = b.auction
  GROUP BY a.id, a.category
) GROUP BY category
