-- FIRST_VALUE and LAST_VALUE of a whole partition so far, in an OVER window on event time.
SELECT bidder, ts, FIRST_VALUE(channel) OVER w AS first_channel, LAST_VALUE(auction) OVER w AS last_auction
FROM bids
WINDOW w AS (PARTITION BY bidder ORDER BY ts)
