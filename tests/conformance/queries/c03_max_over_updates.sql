-- MIN and MAX over an updating input: each auction's latest price can fall, so a retracted maximum
-- falls back to the next one.
SELECT bidder, MAX(price) AS high, MIN(price) AS low, COUNT(*) AS auctions FROM (
  SELECT bidder, auction, price FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY ts DESC) AS rn FROM bids
  ) WHERE rn = 1
) GROUP BY bidder
