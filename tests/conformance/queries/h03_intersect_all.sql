-- INTERSECT ALL: (channel, auction) pairs as many times as they occur in both inputs.
SELECT channel, auction FROM bids WHERE price > 50
INTERSECT ALL
SELECT channel, auction FROM bids WHERE price < 150
