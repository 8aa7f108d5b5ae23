-- FULL OUTER JOIN of two aggregations whose rows come and go.
SELECT COALESCE(x.bidder, y.id) AS who, x.n, y.m FROM
  (SELECT bidder, COUNT(*) AS n FROM bids WHERE price > 150 GROUP BY bidder) x
  FULL OUTER JOIN (SELECT id, COUNT(*) AS m FROM persons WHERE city = 'Oslo' GROUP BY id) y
  ON x.bidder = y.id
