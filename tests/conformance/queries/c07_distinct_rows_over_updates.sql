-- SELECT DISTINCT over an updating input: the distinct latest cities.
SELECT DISTINCT city FROM (
  SELECT id, city FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
  ) WHERE rn = 1
)
