-- Native: window Top-N (the two highest bids of each 30 s window).
SELECT * FROM (
  SELECT window_start, window_end, auction, bidder, price,
         ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC, ts) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '30' SECOND))
  WHERE price IS NOT NULL
) WHERE rn <= 2
