-- SUM, AVG and COUNT over an updating input (per-auction totals, summed per spend band).
SELECT total > 1200 AS rich, SUM(total) AS s, AVG(total) AS a, COUNT(*) AS n FROM (
  SELECT auction, SUM(price) AS total FROM bids GROUP BY auction
) GROUP BY total > 1200
