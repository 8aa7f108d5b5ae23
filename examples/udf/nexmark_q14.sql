-- Nexmark q14 (tests/fixtures/nexmark/q14.sql) with its user function written in Python:
-- count_char is examples/udf/nexmark_udfs.py's, found beside this file (the directory of the .sql
-- file being run is on the module search path; elsewhere, SET 'python.files' = '.../nexmark_udfs.py').
-- Needs the Nexmark tables and views: tests/fixtures/nexmark/ddl_gen.sql and ddl_views.sql.

CREATE TEMPORARY FUNCTION count_char AS 'nexmark_udfs.count_char' LANGUAGE PYTHON;

CREATE TABLE nexmark_q14 (
    auction BIGINT,
    bidder BIGINT,
    price  DECIMAL(23, 3),
    bidTimeType VARCHAR,
    `dateTime` TIMESTAMP(3),
    extra VARCHAR,
    c_counts BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q14
SELECT
    auction,
    bidder,
    0.908 * price as price,
    CASE
        WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
        WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
        ELSE 'otherTime'
    END AS bidTimeType,
    `dateTime`,
    extra,
    count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
