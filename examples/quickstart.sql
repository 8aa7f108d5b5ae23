-- The quickstart: page views per page in one-minute windows, over the sample clicks shipped in
-- examples/data. The source is bounded (no 'source.monitor-interval'), so the continuous query
-- ends by itself once the file is read, with the same result as in batch mode.
CREATE TABLE clicks (
  user_id BIGINT,
  page    STRING,
  ts      TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (
  'connector' = 'filesystem',
  'path'      = 'examples/data/clicks.json',
  'format'    = 'json'
);

SELECT page, window_start, window_end, COUNT(*) AS `views`, COUNT(DISTINCT user_id) AS users
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY page, window_start, window_end;
