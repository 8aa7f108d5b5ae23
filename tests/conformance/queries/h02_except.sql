-- EXCEPT: bidders who never became a person with a city of Lima; a person arriving later
-- retracts the bidder.
SELECT bidder FROM bids
EXCEPT
SELECT id FROM persons WHERE city = 'Lima'
