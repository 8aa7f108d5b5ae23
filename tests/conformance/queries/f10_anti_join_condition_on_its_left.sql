-- NOT EXISTS whose correlated condition also tests the outer row alone: a person outside Oslo has no
-- match whatever its bids, so it stays; a person in Oslo leaves at its first bid over 50.
SELECT p.id, p.city FROM persons p
WHERE NOT EXISTS (SELECT 1 FROM bids b WHERE b.bidder = p.id AND b.price > 50 AND p.city = 'Oslo')
