-- Native: keep-first deduplication (each bidder's first bid).
SELECT bidder, auction, price FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts ASC) AS rn FROM bids
) WHERE rn = 1
