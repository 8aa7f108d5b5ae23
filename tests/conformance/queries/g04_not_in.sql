-- NOT IN with a subquery that has no NULLs: bidders who never bid from the partner channel.
SELECT DISTINCT bidder FROM bids
WHERE bidder NOT IN (SELECT bidder FROM bids WHERE channel = 'partner' AND price > 190)
