-- Top-N after a join and an aggregation: the two most bid-on auctions of each category.
SELECT category, id, n, rn FROM (
  SELECT category, id, n, ROW_NUMBER() OVER (PARTITION BY category ORDER BY n DESC, id ASC) AS rn
  FROM (SELECT a.category, a.id, COUNT(*) AS n FROM auctions a JOIN bids b ON a.id = b.auction
        GROUP BY a.category, a.id)
) WHERE rn <= 2
