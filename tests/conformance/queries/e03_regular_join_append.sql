-- A regular join of two append-only inputs without a time bound.
SELECT a.id, a.category, b.bidder, b.price FROM auctions a JOIN bids b ON a.id = b.auction
WHERE b.price > 150
