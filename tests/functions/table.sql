-- The input of every case: one row of typical values, one of negatives and empty strings, one of
-- NULLs, one of extremes. ${DATA} is the directory holding input.json.
CREATE TABLE t (
    id INT, i INT, b BIGINT, d DOUBLE, m DECIMAL(10, 3), s STRING, ts TIMESTAMP(3), dt DATE, ms BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${DATA}', 'format' = 'json')
