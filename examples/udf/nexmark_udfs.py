"""Nexmark q14's user function in Python: ``count_char(extra, 'c')``.

    SET 'python.files' = 'examples/udf/nexmark_udfs.py';
    CREATE TEMPORARY FUNCTION count_char AS 'nexmark_udfs.count_char' LANGUAGE PYTHON;

The Flink original (com.github.nexmark.flink.udf.CountChar) counts the occurrences of the first
character of its second argument, 0 for a NULL string. A plain annotated function: no import of
sqlengine, no decorator (``int`` is BIGINT, ``str`` STRING)."""

from __future__ import annotations


def count_char(s: str | None, character: str) -> int:
    if s is None:
        return 0
    return s.count(character[0])
