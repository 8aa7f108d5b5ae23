-- ORDER BY ... LIMIT over a stream: a Top-N without a partition.
SELECT auction, bidder, price FROM bids WHERE price IS NOT NULL ORDER BY price DESC, ts ASC LIMIT 5
