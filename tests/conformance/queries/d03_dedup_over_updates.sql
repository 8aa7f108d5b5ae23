-- Top-1 over an updating input: each city's person with the most announcements.
SELECT city, id, n FROM (
  SELECT city, id, n, ROW_NUMBER() OVER (PARTITION BY city ORDER BY n DESC, id ASC) AS rn
  FROM (SELECT city, id, COUNT(*) AS n FROM persons GROUP BY city, id)
) WHERE rn = 1
