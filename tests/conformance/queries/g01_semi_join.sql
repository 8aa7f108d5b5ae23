-- A semi join (IN with a subquery): bids on auctions of category 2.
SELECT auction, bidder, price FROM bids
WHERE auction IN (SELECT id FROM auctions WHERE category = 2)
