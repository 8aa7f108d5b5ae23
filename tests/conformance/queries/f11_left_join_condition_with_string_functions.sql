-- LEFT JOIN whose condition calls string functions of both sides' fields (Spark's own expressions
-- evaluate it per pair on the JVM; the Python join could not): a person matches its auctions whose
-- category's digit is in its name, and stays NULL-padded without one.
SELECT p.id, p.name, p.city, a.id AS auction, a.category FROM persons p LEFT JOIN auctions a
  ON p.id = a.seller AND POSITION(CAST(a.category AS STRING) IN p.name) > 0
