-- EXCEPT ALL: each channel once per bid, less once per bid over 100 (a multiset difference).
SELECT channel FROM bids
EXCEPT ALL
SELECT channel FROM bids WHERE price > 100
