-- Changelog operator (OVER over changes): each bid with the sum and count of its auction's bids
-- at or below its price (ORDER BY a column that is no time attribute, the default RANGE frame:
-- peers share a result); a lower bid arriving later updates the rows above it.
SELECT auction, price, SUM(price) OVER w AS at_or_below, COUNT(*) OVER w AS bids_at_or_below
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY price)
