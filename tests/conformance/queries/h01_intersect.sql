-- INTERSECT: bidders who are also persons (an id that arrives in both inputs, counted once).
SELECT bidder FROM bids WHERE price > 100
INTERSECT
SELECT id FROM persons
