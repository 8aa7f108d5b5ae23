-- FIRST_VALUE, LAST_VALUE and LISTAGG over an updating input: each channel's top price updates,
-- retracting its old value (Flink's ...WithRetract functions), one live row per channel.
SELECT channel, FIRST_VALUE(top) AS first_top, LAST_VALUE(top) AS last_top, LISTAGG(CAST(top AS STRING), ' | ') AS tops
FROM (SELECT channel, MAX(price) AS top FROM bids GROUP BY channel)
GROUP BY channel
