-- COUNT(DISTINCT) and FILTER over an updating input: cities of people, by their latest city.
SELECT COUNT(DISTINCT city) AS cities, COUNT(*) FILTER (WHERE city = 'Oslo') AS in_oslo, COUNT(*) AS people
FROM (
  SELECT id, city FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts DESC) AS rn FROM persons
  ) WHERE rn = 1
)
