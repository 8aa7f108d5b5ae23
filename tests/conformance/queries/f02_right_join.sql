-- RIGHT JOIN: every auction, with the bids over its reserve.
SELECT a.id, a.reserve, b.price FROM bids b RIGHT JOIN auctions a
  ON b.auction = a.id AND b.price > a.reserve
