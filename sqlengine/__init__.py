"""Execution on Spark Structured Streaming: session, connectors, translation, jobs.

Modules here may import pyspark; ``catalog`` and ``planner`` never do.
"""
