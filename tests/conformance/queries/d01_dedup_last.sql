-- Keep-last deduplication: each person's latest city.
SELECT id, name, city FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
) WHERE rn = 1
