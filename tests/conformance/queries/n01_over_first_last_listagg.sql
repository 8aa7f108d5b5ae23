-- FIRST_VALUE, LAST_VALUE and LISTAGG in an OVER window on event time: a ROWS frame of the two
-- bids before each (a row leaving the frame is taken back).
SELECT auction, ts, price,
       FIRST_VALUE(price) OVER w AS first_price, LAST_VALUE(price) OVER w AS last_price,
       LISTAGG(channel) OVER w AS channels
FROM bids
WINDOW w AS (PARTITION BY auction ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
