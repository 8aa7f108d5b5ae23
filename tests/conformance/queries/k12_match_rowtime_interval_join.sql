-- Changelog operators: a MATCH_RECOGNIZE, then an interval join on MATCH_ROWTIME() (a time attribute): each rise
-- meets the bids of its auction within 2 seconds of it, before or after. sqlengine's interval join
-- operator runs it on event time: a match comes out as the watermark passes it, so it still meets
-- the bids the other side holds, and the watermark releases each side's rows.
SELECT r.auction, r.rise, r.rt, b.bidder, b.price
FROM rises r JOIN bids b
  ON r.auction = b.auction AND b.ts BETWEEN r.rt - INTERVAL '2' SECOND AND r.rt + INTERVAL '2' SECOND
