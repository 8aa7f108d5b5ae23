"""SQL to annotated plans: the Flink dialect, binding, logical plans, state analysis, rules, lint.

Never imports pyspark: lint, explain and fmt run without a JVM.
"""
