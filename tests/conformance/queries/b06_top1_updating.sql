-- Top-1 over an updating input: each channel's auction with the highest total.
SELECT channel, auction, total FROM (
  SELECT channel, auction, total,
         ROW_NUMBER() OVER (PARTITION BY channel ORDER BY total DESC, auction ASC) AS rn
  FROM (SELECT channel, auction, SUM(price) AS total FROM bids
        WHERE channel IS NOT NULL AND price IS NOT NULL GROUP BY channel, auction)
) WHERE rn = 1
