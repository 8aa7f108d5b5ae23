-- Top-N without the row number in the output: each auction's two highest prices.
SELECT auction, bidder, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, ts ASC) AS rn
  FROM bids WHERE price IS NOT NULL
) WHERE rn <= 2
