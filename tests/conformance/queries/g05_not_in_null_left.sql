-- NOT IN with a NULL on the left: auction 13 has no category, and NULL NOT IN (3, 4, ...) is
-- unknown, so it is not in the result (a plain anti join would keep it).
SELECT id, category FROM auctions
WHERE category NOT IN (SELECT CAST(auction AS INT) FROM bids WHERE auction > 2)
