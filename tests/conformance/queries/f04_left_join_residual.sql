-- LEFT JOIN with a non-equi residual: auctions with no bid far enough over the reserve stay NULL-padded.
SELECT a.id, a.reserve, b.bidder, b.price FROM auctions a LEFT JOIN bids b
  ON a.id = b.auction AND b.price > a.reserve + 40
