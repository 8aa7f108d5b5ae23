-- Top-N over an append-only input, with the row number: each bidder's three latest bids.
SELECT bidder, ts, auction, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts DESC) AS rn FROM bids
) WHERE rn <= 3
