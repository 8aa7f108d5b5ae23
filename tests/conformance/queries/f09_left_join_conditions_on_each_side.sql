-- LEFT JOIN of two updating inputs with a condition on each side's own fields: a person outside Lima
-- matches nothing and stays NULL-padded, and only spends over 1,200 match (the null-supplying side's
-- condition filters its input, as Flink pushes it there); the spends rise, so matches come and go.
SELECT p.id, p.city, s.spend FROM (
  SELECT id, city FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
  ) WHERE rn = 1
) p LEFT JOIN (SELECT bidder, SUM(price) AS spend FROM bids GROUP BY bidder) s
  ON p.id = s.bidder AND p.city <> 'Oslo' AND s.spend > 1200
