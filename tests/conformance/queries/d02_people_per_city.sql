-- An aggregation over keep-last deduplication: people per latest city (people move).
SELECT city, COUNT(*) AS people FROM (
  SELECT id, city FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
  ) WHERE rn = 1
) GROUP BY city
