-- Top-N over an updating input, partitioned: the three most bid-on auctions of each channel.
SELECT channel, auction, n, rn FROM (
  SELECT channel, auction, n,
         ROW_NUMBER() OVER (PARTITION BY channel ORDER BY n DESC, auction ASC) AS rn
  FROM (SELECT channel, auction, COUNT(*) AS n FROM bids WHERE channel IS NOT NULL GROUP BY channel, auction)
) WHERE rn <= 3
