-- An anti join (NOT EXISTS): auctions without a bid over 120 from the app (retracted as bids come).
SELECT id, seller FROM auctions a
WHERE NOT EXISTS (SELECT 1 FROM bids b WHERE b.auction = a.id AND b.channel = 'app' AND b.price > 120)
