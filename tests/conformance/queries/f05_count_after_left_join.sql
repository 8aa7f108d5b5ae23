-- An aggregation after an outer join: per auction, bids and how many have no seller.
SELECT a_known, COUNT(*) AS n FROM (
  SELECT b.auction, a.seller IS NOT NULL AS a_known FROM bids b LEFT JOIN auctions a ON b.auction = a.id
) GROUP BY a_known
