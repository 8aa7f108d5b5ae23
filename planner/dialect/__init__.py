"""Flink SQL as a sqlglot dialect: ``sqlglot.parse_one(sql, read=Flink)``.

Identifiers are case-sensitive and backquoted, strings are single-quoted with '' as the escape,
and the grammar covers Flink's DDL, window table functions, hints and SQL-client statements.
"""

from __future__ import annotations

import functools

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy

from planner.dialect.generator import FlinkGenerator
from planner.dialect.parser import FlinkParser
from planner.dialect.tokenizer import FlinkTokenizer


class Flink(Dialect):
    NORMALIZATION_STRATEGY = NormalizationStrategy.CASE_SENSITIVE
    ALIAS_POST_VERSION = True
    SUPPORTS_USER_DEFINED_TYPES = False
    SAFE_DIVISION = False
    TYPED_DIVISION = True  # INT / INT is an INT in Flink
    CONCAT_COALESCE = False
    LOG_BASE_FIRST = True

    Tokenizer = FlinkTokenizer
    Parser = FlinkParser
    Generator = FlinkGenerator


def unusable_build() -> str | None:
    """Why this sqlglot cannot run the Flink dialect, or None. sqlglot's compiled build (the
    ``sqlglotc`` package, which ``sqlglot[c]`` pulls in) forbids instantiating a Python subclass of
    its parser, tokenizer or nodes, and the dialect is made of such subclasses; another tool in the
    same environment may have installed it."""
    try:
        Flink().parse("SELECT 1")
    except TypeError as err:
        if "compiled" not in str(err):  # mypyc's words: "interpreted classes cannot inherit from compiled"
            raise
        return (
            f"sqlglot's compiled build (the sqlglotc package) is installed, and it cannot run "
            f"sqlengine's Flink dialect ({err}); remove it with `pip uninstall sqlglotc`"
        )
    return None


def parse_type(text: str) -> exp.DataType:
    """A Flink type (``ROW<a INT, b STRING>``, ``TIMESTAMP_LTZ(3)``, ...) as a sqlglot DataType."""
    # every scan of a table parses its column types again: parse each text once, hand out copies
    # (a copy is 5-10x cheaper than parsing, and callers may attach the type to their own trees)
    return _parse_type(text).copy()


@functools.lru_cache(maxsize=4096)
def _parse_type(text: str) -> exp.DataType:
    return exp.DataType.build(text, dialect=Flink, udt=False)


def type_sql(datatype: exp.DataType) -> str:
    """The canonical Flink text of a type, as stored in the catalog."""
    return datatype.sql(dialect=Flink)


__all__ = ["Flink", "parse_type", "type_sql", "unusable_build"]
