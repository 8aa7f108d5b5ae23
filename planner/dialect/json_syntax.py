"""Flink's SQL/JSON query functions and constructors, with their clauses:

    JSON_VALUE(doc, path [RETURNING type] [{NULL | ERROR | DEFAULT expr} ON EMPTY]
                                          [{NULL | ERROR | DEFAULT expr} ON ERROR])
    JSON_QUERY(doc, path [RETURNING type] [{WITHOUT | WITH [CONDITIONAL | UNCONDITIONAL]} [ARRAY] WRAPPER]
               [{NULL | EMPTY ARRAY | EMPTY OBJECT | ERROR} ON EMPTY] [... ON ERROR])
    JSON_EXISTS(doc, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR])
    JSON_ARRAY([value, ...] [{NULL | ABSENT} ON NULL])
    JSON_ARRAYAGG(value [{NULL | ABSENT} ON NULL])             (an aggregate)

(sqlglot read the clauses as syntax errors, and JSON_ARRAY's as an argument). JSON_OBJECT keeps
sqlglot's own node (``exp.JSONObject``), printed here as Flink writes it. A clause is kept as its
normalized words (``"EMPTY ARRAY"``) or, for DEFAULT, as its expression.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import Token, TokenType, exp
from sqlglot.generator import Generator
from sqlglot.parser import Parser


class JsonValue(exp.Expression, exp.Func):
    arg_types = {"this": True, "path": True, "returning": False, "on_empty": False, "on_error": False}
    _sql_names = ["JSON_VALUE"]


class JsonQuery(exp.Expression, exp.Func):
    arg_types = {"this": True, "path": True, "returning": False, "wrapper": False, "on_empty": False, "on_error": False}
    _sql_names = ["JSON_QUERY"]


class JsonExists(exp.Expression, exp.Func):
    arg_types = {"this": True, "path": True, "on_error": False}
    _sql_names = ["JSON_EXISTS"]


class JsonArray(exp.Expression, exp.Func):
    arg_types = {"expressions": False, "on_null": False}
    _sql_names = ["JSON_ARRAY"]


class JsonArrayAgg(exp.Expression, exp.AggFunc):
    arg_types = {"this": True, "on_null": False}
    _sql_names = ["JSON_ARRAYAGG"]


def lax_path(node: exp.Expr) -> str | None:
    """A JSON query's path without Flink's default 'lax' mode word, when it is a literal in lax
    mode; else None (the checker refuses it: planner.analysis.check.functions)."""
    path = node.args.get("path")
    if not (isinstance(path, exp.Literal) and path.is_string):
        return None
    text = str(path.this).strip()
    if text.lower().startswith("strict"):
        return None
    return text[3:].strip() if text.lower().startswith("lax") else text


VALUE_BEHAVIOURS = (("NULL",), ("ERROR",))
QUERY_BEHAVIOURS = (("NULL",), ("ERROR",), ("EMPTY", "ARRAY"), ("EMPTY", "OBJECT"))
EXISTS_BEHAVIOURS = (("TRUE",), ("FALSE",), ("UNKNOWN",), ("ERROR",))


def _behaviour(p: Parser, on: str, options: tuple[tuple[str, ...], ...], default: bool) -> str | exp.Expr | None:
    """``<option> ON <on>`` (its words) or ``DEFAULT expr ON <on>`` (the expression), if next."""
    for words in options:
        if p._match_text_seq(*words, "ON", on):
            return " ".join(words)
    start = p._index
    if default and p._match(TokenType.DEFAULT):
        value = p._parse_bitwise()
        if p._match_text_seq("ON", on):
            return value
        p._retreat(start)  # DEFAULT ... ON <the other one>
    return None


def _doc_and_path(p: Parser) -> tuple[exp.Expr, exp.Expr]:
    doc = p._parse_assignment()
    if doc is None or not p._match(TokenType.COMMA):
        p.raise_error("Expected the JSON value, `,` and a JSON path")
    path = p._parse_assignment()
    if path is None:
        p.raise_error("Expected a JSON path")
    assert doc is not None and path is not None  # raise_error raised
    return doc, path


def _name_token(p: Parser) -> Token | None:
    """The function's name (the parser is called past its name and '(')."""
    i = p._index - 2
    return p._tokens[i] if 0 <= i < len(p._tokens) else None


def _at_name(node: exp.Expr, name: Token | None) -> exp.Expr:
    """A message about the call points at it from its name, not from its first argument."""
    if name is not None:
        node.meta["start"] = name.start
        node.meta["end"] = name.end
    return node


def _returning(p: Parser) -> exp.Expr | None:
    return p._parse_types() if p._match_text_seq("RETURNING") else None


def parse_json_value(p: Parser) -> exp.Expr:
    name = _name_token(p)
    doc, path = _doc_and_path(p)
    returning = _returning(p)
    on_empty = _behaviour(p, "EMPTY", VALUE_BEHAVIOURS, default=True)
    on_error = _behaviour(p, "ERROR", VALUE_BEHAVIOURS, default=True)
    return _at_name(p.expression(JsonValue(this=doc, path=path, returning=returning, on_empty=on_empty, on_error=on_error)), name)


def parse_json_query(p: Parser) -> exp.Expr:
    name = _name_token(p)
    doc, path = _doc_and_path(p)
    returning = _returning(p)
    wrapper = None
    if p._match_text_seq("WITHOUT"):
        wrapper = "WITHOUT"
    elif p._match_text_seq("WITH"):
        wrapper = "CONDITIONAL" if p._match_text_seq("CONDITIONAL") else "UNCONDITIONAL"
        p._match_text_seq("UNCONDITIONAL")
    if wrapper is not None:
        p._match_text_seq("ARRAY")
        if not p._match_text_seq("WRAPPER"):
            p.raise_error("Expected WRAPPER")
    on_empty = _behaviour(p, "EMPTY", QUERY_BEHAVIOURS, default=False)
    on_error = _behaviour(p, "ERROR", QUERY_BEHAVIOURS, default=False)
    return _at_name(p.expression(JsonQuery(this=doc, path=path, returning=returning, wrapper=wrapper, on_empty=on_empty, on_error=on_error)), name)


def parse_json_exists(p: Parser) -> exp.Expr:
    name = _name_token(p)
    doc, path = _doc_and_path(p)
    return _at_name(p.expression(JsonExists(this=doc, path=path, on_error=_behaviour(p, "ERROR", EXISTS_BEHAVIOURS, default=False))), name)


def parse_json_array(p: Parser) -> exp.Expr:
    values: list[exp.Expr] = []
    on_null = _behaviour(p, "NULL", (("NULL",), ("ABSENT",)), default=False)
    if on_null is None and p._curr is not None and p._curr.token_type != TokenType.R_PAREN:
        values = p._parse_csv(p._parse_assignment)
        on_null = _behaviour(p, "NULL", (("NULL",), ("ABSENT",)), default=False)
    return p.expression(JsonArray(expressions=values, on_null=on_null))


def parse_json_arrayagg(p: Parser) -> exp.Expr:
    name = _name_token(p)
    value = p._parse_assignment()
    if value is None:
        p.raise_error("Expected the value of JSON_ARRAYAGG")
    on_null = _behaviour(p, "NULL", (("NULL",), ("ABSENT",)), default=False)
    return _at_name(p.expression(JsonArrayAgg(this=value, on_null=on_null)), name)


FUNCTION_PARSERS = {
    "JSON_ARRAYAGG": parse_json_arrayagg,
    "JSON_VALUE": parse_json_value,
    "JSON_QUERY": parse_json_query,
    "JSON_EXISTS": parse_json_exists,
    "JSON_ARRAY": parse_json_array,
}


# -- printing ----------------------------------------------------------------------------------


def _on(g: Generator, value: str | exp.Expr | None, on: str) -> str:
    if value is None:
        return ""
    return f" {'DEFAULT ' + g.sql(value) if isinstance(value, exp.Expr) else value} ON {on}"


def _returning_sql(g: Generator, e: exp.Expr) -> str:
    t = e.args.get("returning")
    return f" RETURNING {g.sql(t)}" if t is not None else ""


def json_value_sql(g: Generator, e: JsonValue) -> str:
    return (f"JSON_VALUE({g.sql(e.this)}, {g.sql(e.args['path'])}{_returning_sql(g, e)}"
            f"{_on(g, e.args.get('on_empty'), 'EMPTY')}{_on(g, e.args.get('on_error'), 'ERROR')})")


def json_query_sql(g: Generator, e: JsonQuery) -> str:
    wrapper = e.args.get("wrapper")
    wrap = "" if wrapper is None else (" WITHOUT ARRAY WRAPPER" if wrapper == "WITHOUT" else f" WITH {wrapper} ARRAY WRAPPER")
    return (f"JSON_QUERY({g.sql(e.this)}, {g.sql(e.args['path'])}{_returning_sql(g, e)}{wrap}"
            f"{_on(g, e.args.get('on_empty'), 'EMPTY')}{_on(g, e.args.get('on_error'), 'ERROR')})")


def json_exists_sql(g: Generator, e: JsonExists) -> str:
    return f"JSON_EXISTS({g.sql(e.this)}, {g.sql(e.args['path'])}{_on(g, e.args.get('on_error'), 'ERROR')})"


def json_array_sql(g: Generator, e: JsonArray) -> str:
    on_null = e.args.get("on_null")
    values = ", ".join(g.sql(v) for v in e.expressions)
    clause = f"{on_null} ON NULL" if on_null else ""
    return f"JSON_ARRAY({values}{' ' if values and clause else ''}{clause})"


def json_arrayagg_sql(g: Generator, e: JsonArrayAgg) -> str:
    on_null = e.args.get("on_null")
    return f"JSON_ARRAYAGG({g.sql(e.this)}{f' {on_null} ON NULL' if on_null else ''})"


def json_objectagg_sql(g: Generator, e: exp.JSONObjectAgg) -> str:
    (kv,) = e.expressions
    on_null = e.args.get("null_handling")
    return f"JSON_OBJECTAGG(KEY {g.sql(kv.this)} VALUE {g.sql(kv.expression)}{' ' + on_null if on_null else ''})"


def json_object_sql(g: Generator, e: exp.JSONObject) -> str:
    pairs = ", ".join(f"KEY {g.sql(kv.this)} VALUE {g.sql(kv.expression)}" for kv in e.expressions)
    on_null = e.args.get("null_handling")
    return f"JSON_OBJECT({pairs}{' ' if pairs and on_null else ''}{on_null or ''})"


TRANSFORMS: dict[type[exp.Expr], Callable[..., str]] = {
    JsonValue: json_value_sql,
    JsonQuery: json_query_sql,
    JsonExists: json_exists_sql,
    JsonArray: json_array_sql,
    JsonArrayAgg: json_arrayagg_sql,
    exp.JSONObject: json_object_sql,
    exp.JSONObjectAgg: json_objectagg_sql,
}
