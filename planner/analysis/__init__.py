"""What a bound plan means for Spark: changelog properties (``properties``), native or changelog
operator per node (``physical``), state kept and what releases it (``state``), its size
(``estimate``, ``lineage``), what Spark cannot run (``check``); ``analyze`` runs them in that order
and holds the result."""
