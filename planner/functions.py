"""The functions a query may call without a CREATE FUNCTION: Flink's built-ins (the dialect's
list) and no others, so that a misspelt, missing or foreign one is a positioned error (E002) at
planning time, as Flink's validator makes it, instead of a Spark error when a job starts or a query
that passes here and fails in Flink. The shell's completion offers them."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from planner.dialect.functions import FLINK_FUNCTIONS

BUILTIN_FUNCTIONS: frozenset[str] = FLINK_FUNCTIONS - {"DESCRIPTOR"}  # a window TVF's argument syntax, not a call
# (aggregates, ranking and legacy window functions: planner.binder.names)

# Names other engines (Hive, Spark, MySQL) have and Flink 2.3 does not: its validator refuses each
# ("No match found for function signature"), so a query calling one is refused here too, with
# Flink's spelling of the same thing (checked against Flink 2.3: tests/functions/not_compared.txt)
FOREIGN_FUNCTIONS: dict[str, str] = {
    "NVL": "COALESCE(a, b) or IFNULL(a, b)",
    "LENGTH": "CHAR_LENGTH(s)",
    "POW": "POWER(x, y)",
    "DATE": "CAST(x AS DATE), or TO_DATE(s [, format])",
    "DATE_TRUNC": "FLOOR(ts TO DAY) (or YEAR, MONTH, HOUR, ...)",
    "DATEDIFF": "TIMESTAMPDIFF(DAY, start, end)",
    "DATE_ADD": "d + INTERVAL 'n' DAY, or TIMESTAMPADD(DAY, n, d)",
    "DATE_SUB": "d - INTERVAL 'n' DAY, or TIMESTAMPADD(DAY, -n, d)",
    "ANY_VALUE": "MIN(x), MAX(x), FIRST_VALUE(x) or LAST_VALUE(x)",
    "BIT_AND": "a user-defined aggregate function: Flink SQL has no bitwise aggregates",
    "BIT_OR": "a user-defined aggregate function: Flink SQL has no bitwise aggregates",
    "BIT_XOR": "a user-defined aggregate function: Flink SQL has no bitwise aggregates",
}


def callable_without_create(name: str) -> bool:
    """May a query call ``name`` with no CREATE FUNCTION (a Flink built-in)?"""
    return name.upper() in BUILTIN_FUNCTIONS


def flink_spelling(name: str) -> str | None:
    """How Flink writes what another engine's function ``name`` does, when it is one of those."""
    return FOREIGN_FUNCTIONS.get(name.upper())


def suggest_function(name: str, user_functions: Sequence[str] = ()) -> str | None:
    """'did you mean' for an unknown function name."""
    candidates = sorted(BUILTIN_FUNCTIONS) + list(user_functions)
    close = difflib.get_close_matches(name.upper(), [c.upper() for c in candidates], n=1, cutoff=0.75)
    if not close:
        return None
    match = next(c for c in candidates if c.upper() == close[0])
    return f"did you mean `{match}`?"
