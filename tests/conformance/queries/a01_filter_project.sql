-- Native: a stateless filter and projection with expressions.
SELECT auction, bidder, price * 2 AS doubled, UPPER(channel) AS ch, price > 100 AS big
FROM bids WHERE price IS NOT NULL AND channel <> 'partner'
