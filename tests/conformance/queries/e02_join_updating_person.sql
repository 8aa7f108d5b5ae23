-- A regular join with an updating side: each bid with its bidder's latest city.
SELECT b.auction, b.price, p.city FROM bids b JOIN (
  SELECT id, city FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
  ) WHERE rn = 1
) p ON b.bidder = p.id
