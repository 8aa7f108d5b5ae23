-- The conformance suite's tables. ${DATA} is the data directory; ${SOURCE_OPTIONS} is empty for
-- Flink and, for sqlengine, reads one file per micro-batch so state crosses batch boundaries.
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
