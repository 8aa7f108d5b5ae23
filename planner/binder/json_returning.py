"""The RETURNING types of JSON_VALUE and JSON_QUERY that Flink 2.3 takes: any other fails its
planner ("Unsupported type ... for RETURNING"), so the binder refuses it at the call."""

from __future__ import annotations

from sqlglot import exp

from planner.dialect import type_sql
from planner.dialect.json_syntax import JsonQuery, JsonValue
from planner.logical import typing as T
from planner.problems import BindError

# the RETURNING types Flink 2.3 generates code for (any other fails its planner)
_JSON_RETURNING = {
    "JSON_VALUE": ("STRING, VARCHAR(n), BOOLEAN, INT or DOUBLE", (*T.STRINGS, exp.DType.BOOLEAN, exp.DType.INT, exp.DType.DOUBLE)),
    "JSON_QUERY": ("STRING, VARCHAR(n) or ARRAY<STRING>", (*T.STRINGS, exp.DType.ARRAY)),
}


def check_json_returning(node: JsonValue | JsonQuery) -> None:
    t = node.args.get("returning")
    if not isinstance(t, exp.DataType):
        return
    name = node.sql_name()
    allowed, kinds = _JSON_RETURNING[name]
    ok = T.is_type(t, *kinds) and not T.is_type(t, exp.DType.CHAR)
    if ok and T.is_type(t, exp.DType.ARRAY):
        ok = bool(t.expressions) and T.is_type(t.expressions[0], *T.STRINGS) and not T.is_type(t.expressions[0], exp.DType.CHAR)
    if not ok:
        raise BindError(f"{name} cannot return {type_sql(t)}: Flink takes {allowed}", node)
