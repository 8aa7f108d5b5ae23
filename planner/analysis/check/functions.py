"""The built-in functions accepted by the binder whose result Spark cannot give as Flink does:
each is refused when a statement is planned (SE301 names it), never left to fail or differ in a
job. The reasons come from the function suite (tests/functions), which compares every built-in
with Flink 2.3's own values; docs/dialect.md's function table is generated from both."""

from __future__ import annotations

from sqlglot import exp

from planner.dialect.json_syntax import JsonExists, JsonQuery, JsonValue, lax_path
from planner.logical import typing as T

# Flink name -> why Spark cannot give its result
REFUSED: dict[str, str] = {
    "TYPEOF": "Spark names types its own way (decimal(10,3), not DECIMAL(10, 3))",
}


def hash_code_runs(t: exp.DataType) -> bool:
    """HASH_CODE of a value of type ``t`` runs (``sqlengine.translate.java_text``) for the types
    whose Java hashCode Spark's built-ins compute: strings, integers, BOOLEAN (UNKNOWN: a NULL)."""
    return T.is_type(t, *T.STRINGS, *T.INTEGERS, exp.DType.BOOLEAN, exp.DType.UNKNOWN, exp.DType.NULL)


def flink_name(call: exp.Expr) -> str | None:
    """The Flink function a bound call is, when it is a function call."""
    if isinstance(call, exp.Anonymous):
        return call.name.upper()
    if isinstance(call, exp.Func):
        return call.sql_name().upper()
    return None


def refused(call: exp.Expr) -> tuple[str, str] | None:
    """(function, reason) when ``call`` is a refused built-in (a user function never is)."""
    if call.meta.get("user_function") is not None:
        return None
    if isinstance(call, (JsonValue, JsonQuery, JsonExists)) and lax_path(call) is None:
        return call.sql_name(), "Spark reads a JSON path given as a literal, in lax mode (the default) only"
    name = flink_name(call)
    if name is None or name not in REFUSED:
        return None
    return name, REFUSED[name]
