-- A scalar subquery in the select list: each bid of the first auctions next to the highest price
-- of any bid so far.
SELECT auction, price, (SELECT MAX(price) FROM bids) AS top
FROM bids
WHERE auction < 5
