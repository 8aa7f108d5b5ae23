"""The words of our dialect as the shell knows them: keywords (for highlighting and completion),
built-in functions, window table functions and types. Gathered from the planner's own tables so
that the shell offers what the binder accepts; nothing here imports pyspark or prompt_toolkit."""

from __future__ import annotations

from planner.dialect.keywords import RESERVED
from planner.statements.show import BUILTIN_FUNCTIONS

# Words a user types most; completion offers these before the rest of the reserved list.
COMMON_KEYWORDS = (
    "SELECT", "FROM", "WHERE", "GROUP BY", "HAVING", "ORDER BY", "LIMIT", "JOIN", "LEFT JOIN",
    "RIGHT JOIN", "FULL OUTER JOIN", "INNER JOIN", "CROSS JOIN", "ON", "AS", "AND", "OR", "NOT",
    "IN", "IS NULL", "IS NOT NULL", "BETWEEN", "LIKE", "CASE", "WHEN", "THEN", "ELSE", "END",
    "DISTINCT", "UNION ALL", "INSERT INTO", "VALUES", "CREATE TABLE", "CREATE VIEW",
    "CREATE TEMPORARY VIEW", "CREATE FUNCTION", "DROP TABLE", "DROP VIEW", "ALTER TABLE",
    "WITH", "WATERMARK FOR", "PRIMARY KEY", "NOT ENFORCED", "METADATA", "VIRTUAL", "INTERVAL",
    "DESCRIPTOR", "TABLE", "OVER", "PARTITION BY", "ROWS BETWEEN", "RANGE BETWEEN",
    "UNBOUNDED PRECEDING", "CURRENT ROW", "FOR SYSTEM_TIME AS OF", "MATCH_RECOGNIZE",
    "EXECUTE STATEMENT SET", "BEGIN STATEMENT SET", "SET", "RESET", "SHOW TABLES", "SHOW VIEWS",
    "SHOW FUNCTIONS", "SHOW JOBS", "SHOW STATE", "SHOW CREATE TABLE", "SHOW CREATE VIEW", "SHOW COLUMNS FROM",
    "DESCRIBE", "DESCRIBE JOB", "STOP JOB", "EXPLAIN", "HELP", "QUIT", "EXIT", "CLEAR",
    "IF NOT EXISTS", "IF EXISTS", "LIKE", "SECOND", "MINUTE", "HOUR", "DAY", "TIMESTAMP",
    "TIMESTAMP_LTZ", "ASC", "DESC", "NULL", "TRUE", "FALSE",
)

# Non-reserved words of Flink's DDL and client statements (not in the reserved list).
EXTRA_KEYWORDS = frozenset(
    (
        "WATERMARK", "ENFORCED", "TEMPORARY", "JOBS", "JOB", "STATE", "TABLES", "VIEWS", "FUNCTIONS", "STOP",
        "QUIT", "EXIT", "HELP", "CLEAR", "USE", "SHOW", "IF", "COMMENT", "PARTITIONED", "OVERWRITE",
        "STATEMENT", "VIEW", "CATALOGS", "DATABASES", "REPLACE", "LATERAL", "UNNEST", "PROCTIME",
        "SYSTEM_TIME", "MEASURES", "PATTERN", "DEFINE", "PER", "SKIP", "PAST", "DRAIN", "SAVEPOINT",
        "STRING", "TINYINT", "SMALLINT", "VARCHAR", "BYTES", "TIMESTAMP_LTZ", "MULTISET", "RAW",
        "DISTRIBUTED", "INTO", "BUCKETS",
    )
)

# Single letters and words only COBOL programmers miss: reserved, but no use as suggestions.
_NOISE = frozenset(("A", "C", "G", "K", "M", "ADA", "COBOL", "FORTRAN", "MUMPS", "PASCAL", "PLI", "END-EXEC"))

KEYWORDS: frozenset[str] = frozenset(w for w in RESERVED | EXTRA_KEYWORDS if w not in _NOISE)

WINDOW_TVFS = ("TUMBLE", "HOP", "CUMULATE", "SESSION")

TYPES = (
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL",
    "STRING", "VARCHAR", "CHAR", "BYTES", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP",
    "TIMESTAMP_LTZ", "ARRAY", "MAP", "ROW", "MULTISET",
)

__all__ = ["BUILTIN_FUNCTIONS", "COMMON_KEYWORDS", "KEYWORDS", "TYPES", "WINDOW_TVFS"]
