-- FULL OUTER JOIN of two append-only inputs without a time bound: sellers and people.
SELECT a.id AS auction, a.seller, p.id AS person, p.city
FROM auctions a FULL OUTER JOIN persons p ON a.seller = p.id AND p.city = 'Lima'
