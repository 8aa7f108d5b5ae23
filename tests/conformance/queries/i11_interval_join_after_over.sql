-- Changelog operators: an OVER aggregation on event time, then an interval join on its time: each bid's running sum
-- of its auction's last three prices, with the auction's other bids of the 3 seconds after it.
SELECT o.auction, o.ts, o.s, b.bidder, b.price
FROM over_sums o JOIN bids b
  ON o.auction = b.auction AND b.ts > o.ts AND b.ts <= o.ts + INTERVAL '3' SECOND
