-- A regular join of two aggregations: bids per bidder with the bidder's announcements.
SELECT b.bidder, b.n, p.m FROM
  (SELECT bidder, COUNT(*) AS n FROM bids GROUP BY bidder) b
  JOIN (SELECT id, COUNT(*) AS m FROM persons GROUP BY id) p ON b.bidder = p.id
