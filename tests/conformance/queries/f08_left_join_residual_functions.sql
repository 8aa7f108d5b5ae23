-- LEFT JOIN whose residual calls functions of both sides (ABS, COALESCE, CASE): the changelog join evaluates them per
-- pair of rows; auctions with no bid near their reserve stay NULL-padded.
SELECT a.id, a.reserve, b.bidder, b.price FROM auctions a LEFT JOIN bids b
  ON a.id = b.auction
  AND ABS(b.price - a.reserve) < CASE WHEN a.category = 1 THEN 30 ELSE 15 END
  AND COALESCE(b.channel, 'web') <> 'partner'
