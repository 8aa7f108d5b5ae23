"""Differential harness: our Flink dialect against Apache Flink's own SQL parser (syntax only)."""
