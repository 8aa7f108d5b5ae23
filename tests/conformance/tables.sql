-- The conformance suite's tables. ${DATA} is the data directory; ${SOURCE_OPTIONS} is empty for
-- Flink and, for sqlengine, reads two of a table's four files per micro-batch so state crosses a
-- batch boundary. ${IN_ORDER_OPTIONS} reads one file per micro-batch: the rows of fee_log must
-- arrive in the order Flink read them (below).
CREATE TABLE bids (
    ts TIMESTAMP(3), auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/bids', 'format' = 'json'${SOURCE_OPTIONS});

CREATE TABLE auctions (
    ts TIMESTAMP(3), id BIGINT, seller BIGINT, category INT, reserve BIGINT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/auctions', 'format' = 'json'${SOURCE_OPTIONS});

CREATE TABLE persons (
    ts TIMESTAMP(3), id BIGINT, name STRING, city STRING,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/persons', 'format' = 'json'${SOURCE_OPTIONS});

-- the same rows twice: a versioned table (a primary key and a watermark), and a plain log of
-- changes that a versioned view (the latest row per channel) makes versioned
CREATE TABLE fees (
    ts TIMESTAMP(3), channel STRING, fee INT, min_price BIGINT,
    PRIMARY KEY (channel) NOT ENFORCED,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/fees', 'format' = 'json'${SOURCE_OPTIONS});

-- (fee_log's versioned view keeps the last row per channel on its time and, as in Flink, drops a
-- row that arrives after a later one; so its result depends on arrival order, and Spark reads the
-- files of one micro-batch side by side, in no set order: one file per batch keeps Flink's order)
CREATE TABLE fee_log (
    ts TIMESTAMP(3), channel STRING, fee INT, min_price BIGINT,
    WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/fees', 'format' = 'json'${IN_ORDER_OPTIONS});

CREATE VIEW versioned_fees AS
SELECT channel, fee, min_price, ts FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY channel ORDER BY ts DESC) AS rownum FROM fee_log
) WHERE rownum = 1;

-- the bids with an event time that is a TIMESTAMP_LTZ: ts read as a wall time in the session's zone
CREATE TABLE bids_ltz (
    ts TIMESTAMP(3), auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,
    lts AS CAST(ts AS TIMESTAMP_LTZ(3)),
    WATERMARK FOR lts AS lts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/bids', 'format' = 'json'${SOURCE_OPTIONS});

-- clicks across Los Angeles' daylight saving time changes, timed in epoch milliseconds
CREATE TABLE taps (
    ms BIGINT, who STRING, clicks INT,
    lts AS TO_TIMESTAMP_LTZ(ms, 3),
    WATERMARK FOR lts AS lts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = '${DATA}/taps', 'format' = 'json'${SOURCE_OPTIONS});

-- a rise right after a bid, per auction (MATCH_RECOGNIZE), with its time: MATCH_ROWTIME() is a time attribute
CREATE VIEW rises AS
SELECT * FROM bids
MATCH_RECOGNIZE (
    PARTITION BY auction
    ORDER BY ts
    MEASURES UP.price - START_ROW.price AS rise, MATCH_ROWTIME() AS rt
    ONE ROW PER MATCH
    AFTER MATCH SKIP PAST LAST ROW
    PATTERN (START_ROW UP)
    DEFINE UP AS UP.price > START_ROW.price
);

-- each bid with the sum of its auction's last three prices (an OVER on event time; ts stays a time attribute)
CREATE VIEW over_sums AS
SELECT ts, auction, SUM(price) OVER (PARTITION BY auction ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s
FROM bids;

