-- A semi join over an aggregation: bidders who are among those with more than 20 bids.
SELECT id, city, ts FROM persons
WHERE id IN (SELECT bidder FROM bids GROUP BY bidder HAVING COUNT(*) > 20)
