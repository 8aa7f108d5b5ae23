-- Top-N over an updating input (a SUM per bidder): the two biggest spenders.
SELECT bidder, spend, rn FROM (
  SELECT bidder, spend, ROW_NUMBER() OVER (ORDER BY spend DESC, bidder ASC) AS rn
  FROM (SELECT bidder, SUM(price) AS spend FROM bids GROUP BY bidder)
) WHERE rn <= 2
