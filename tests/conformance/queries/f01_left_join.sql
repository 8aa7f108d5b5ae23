-- LEFT JOIN without a time bound: bids without an announced auction stay, padded with NULLs.
SELECT b.auction, b.price, a.seller FROM bids b LEFT JOIN auctions a ON b.auction = a.id
WHERE b.bidder = 3
