-- Native: an interval join (bids within 20 s after their auction was announced).
SELECT a.id, a.seller, b.bidder, b.price
FROM auctions a JOIN bids b
  ON a.id = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '20' SECOND
