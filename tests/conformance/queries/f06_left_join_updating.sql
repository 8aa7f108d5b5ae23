-- LEFT JOIN of an updating input: latest city of each person with their total spend, if any.
SELECT p.id, p.city, s.spend FROM (
  SELECT id, city FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
  ) WHERE rn = 1
) p LEFT JOIN (SELECT bidder, SUM(price) AS spend FROM bids WHERE channel = 'app' GROUP BY bidder) s
  ON p.id = s.bidder
