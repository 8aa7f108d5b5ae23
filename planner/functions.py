"""The functions a query may call without a CREATE FUNCTION, so that a misspelt or missing one is
a positioned error (E002) at planning time instead of a Spark error when a job starts: Flink's
built-ins (the dialect's list) and a few compatible names. The shell's completion offers them."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from planner.dialect.functions import FLINK_FUNCTIONS
from planner.logical import typing as T

# accepted as well: Hive-style names that Flink's Hive module and many Flink jobs use, and that
# the translator runs
_COMPAT = {"DATE_ADD", "DATE_SUB", "DATEDIFF", "STDDEV", "LENGTH", "NVL"}

BUILTIN_FUNCTIONS: frozenset[str] = frozenset(
    FLINK_FUNCTIONS
    | _COMPAT
    | T.STRING_FUNCS | T.INT_FUNCS | T.BIGINT_FUNCS | T.DOUBLE_FUNCS | T.BOOL_FUNCS
    | T.TIMESTAMP_FUNCS | T.LTZ_FUNCS | T.DATE_FUNCS
) - {"LIKE", "SIMILAR", "DESCRIPTOR"}  # DESCRIPTOR is a window TVF's argument syntax, not a call
# (aggregates, ranking and legacy window functions: planner.binder.expressions)


def callable_without_create(name: str) -> bool:
    """May a query call ``name`` with no CREATE FUNCTION (a Flink built-in or a compatible name)?"""
    return name.upper() in BUILTIN_FUNCTIONS


def suggest_function(name: str, user_functions: Sequence[str] = ()) -> str | None:
    """'did you mean' for an unknown function name."""
    candidates = sorted(BUILTIN_FUNCTIONS) + list(user_functions)
    close = difflib.get_close_matches(name.upper(), [c.upper() for c in candidates], n=1, cutoff=0.75)
    if not close:
        return None
    match = next(c for c in candidates if c.upper() == close[0])
    return f"did you mean `{match}`?"
