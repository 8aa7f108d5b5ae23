-- Changelog operators: a MATCH_RECOGNIZE on the right of an outer interval join on MATCH_ROWTIME(): each rise with
-- the auctions of its id opened in the 10 seconds before it; a rise without one comes out padded
-- with NULLs once the watermark passes its bound.
SELECT r.auction, r.rise, r.rt, a.seller, a.reserve
FROM auctions a RIGHT JOIN rises r
  ON a.id = r.auction AND a.ts BETWEEN r.rt - INTERVAL '10' SECOND AND r.rt
