"""Flink's JSON functions on Spark, composed of Spark's built-ins and checked value by value
against Flink 2.3 (tests/functions/cases/json.txt).

Queries (JSON_VALUE, JSON_QUERY, JSON_EXISTS) read the document with ``try_parse_json`` into a
VARIANT and the path with ``try_variant_get``: both take Flink's lax paths (``$.a.b``, ``$.c[1]``,
``$['k']``); text that is not JSON is Flink's error case, answered by the ON ERROR clause. What
Flink 2.3 does that the clauses do not say: a missing member gives NULL even with an ON EMPTY
clause (it does not count as empty in lax mode), and JSON_EXISTS of a member whose value is JSON
null is false.

Constructors (JSON_STRING, JSON_OBJECT, JSON_ARRAY) write each value as ``to_json`` writes it in
an array, brackets cut off; a DOUBLE's exponent gets Flink's sign (1.0E+300, Spark 1.0E300), and
the result of a JSON constructor nested in another is inserted as JSON, not as a string.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from planner.dialect.json_syntax import JsonArray, JsonExists, JsonQuery, JsonValue
from planner.logical import typing as T
from sqlengine.translate.calls import call as _call
from sqlengine.translate.calls import lit as _lit


def _fail(what: str) -> exp.Expr:
    return _call("raise_error", _lit(what))


def _parsed(doc: exp.Expr) -> exp.Expr:
    return _call("try_parse_json", doc)


def _at(doc: exp.Expr, path: str) -> exp.Expr:
    return _call("try_variant_get", _parsed(doc), _lit(path), _lit("variant"))


def _structured(v: exp.Expr) -> exp.Expr:
    kind = _call("schema_of_variant", v)
    return exp.or_(exp.Like(this=kind, expression=_lit("OBJECT%")), exp.Like(this=kind.copy(), expression=_lit("ARRAY%")))


def _invalid(doc: exp.Expr) -> exp.Expr:
    """The document is text that is not JSON (Flink's error case; a NULL document is not)."""
    return exp.and_(exp.Not(this=exp.Is(this=doc.copy(), expression=exp.Null())), exp.Is(this=_parsed(doc.copy()), expression=exp.Null()))


def _on_error(behaviour: str | exp.Expr | None, name: str, empty: dict[str, exp.Expr] | None = None) -> exp.Expr:
    if isinstance(behaviour, exp.Expr):
        return behaviour
    if behaviour == "ERROR":
        return _fail(f"{name}: the JSON value or path is not valid here")
    if empty and behaviour in empty:
        return empty[behaviour]
    return exp.Null()


def json_value(n: JsonValue, path: str) -> exp.Expr:
    """``n`` with its arguments already rewritten."""
    doc = n.this
    v = _at(doc, path)
    error = exp.or_(_invalid(doc), _structured(v.copy()))
    on_error = _on_error(n.args.get("on_error"), "JSON_VALUE")
    value: exp.Expr = _call("try_variant_get", v.copy(), _lit("$"), _lit("string"))
    returning = n.args.get("returning")
    if returning is not None and not T.is_type(returning, *T.STRINGS):
        value = exp.Cast(this=value, to=returning.copy())
    return _cut(exp.Case(ifs=[exp.If(this=error, true=on_error)], default=value), returning, doc)


def _cut(text: exp.Expr, returning: exp.DataType | None, doc: exp.Expr) -> exp.Expr:
    """RETURNING VARCHAR(n): Flink 2.3 cuts the text to n characters only when its planner
    folds the call to a constant (the document is one); at run time the text is left whole."""
    if returning is None or not T.is_type(returning, exp.DType.VARCHAR) or not returning.expressions:
        return text
    if any(isinstance(x, exp.Column) for x in doc.walk()):
        return text
    return exp.Substring(this=text, start=exp.Literal.number(1), length=returning.expressions[0].this.copy())


_EMPTY: dict[str, exp.Expr] = {"EMPTY ARRAY": _lit("[]"), "EMPTY OBJECT": _lit("{}")}


def json_query(n: JsonQuery, path: str) -> exp.Expr:
    doc = n.this
    v = _at(doc, path)
    returning = n.args.get("returning")
    if returning is not None and T.is_type(returning, exp.DType.ARRAY):
        return _json_query_array(n, v)
    text = _call("to_json", v.copy())
    wrapped = _call("concat", _lit("["), text.copy(), _lit("]"))
    on_error = _on_error(n.args.get("on_error"), "JSON_QUERY", _EMPTY)
    wrapper = n.args.get("wrapper") or "WITHOUT"
    missing = exp.Is(this=v.copy(), expression=exp.Null())
    if wrapper == "UNCONDITIONAL":
        found: exp.Expr = wrapped
    elif wrapper == "CONDITIONAL":  # anything but an array is wrapped, an object too
        found = exp.If(this=_is(v.copy(), "ARRAY"), true=text, false=wrapped)
    else:  # a scalar without a wrapper is an error
        found = exp.If(this=_structured(v.copy()), true=text, false=on_error.copy())
    return _cut(exp.Case(ifs=[exp.If(this=_invalid(doc), true=on_error), exp.If(this=missing, true=exp.Null())], default=found), returning, doc)


def _is(v: exp.Expr, kind: str) -> exp.Expr:
    return exp.Like(this=_call("schema_of_variant", v), expression=_lit(f"{kind}%"))


def _json_query_array(n: JsonQuery, v: exp.Expr) -> exp.Expr:
    """RETURNING ARRAY<STRING>: the (wrapped) result must be a JSON array; each element is its
    text (a string unquoted, a number as written, an object or array as JSON, null as NULL).
    Anything else is the ON ERROR case, as is a document that is not JSON; a path that finds
    nothing is NULL (lax mode), as in Flink 2.3."""
    wrapper = n.args.get("wrapper") or "WITHOUT"
    elements = _call("try_variant_get", v.copy(), _lit("$"), _lit("array<variant>"))
    alone = exp.Array(expressions=[v.copy()])
    if wrapper == "UNCONDITIONAL":
        items: exp.Expr = alone
    elif wrapper == "CONDITIONAL":  # an array is taken as it is, anything else wrapped
        items = exp.If(this=_is(v.copy(), "ARRAY"), true=elements, false=alone)
    else:
        items = elements
    x = exp.to_identifier("__e")
    text = exp.Case(ifs=[exp.If(this=_call("is_variant_null", exp.column(x)), true=exp.Null()),
                         exp.If(this=exp.or_(_is(exp.column(x), "OBJECT"), _is(exp.column(x), "ARRAY")), true=_call("to_json", exp.column(x)))],
                    default=_call("try_variant_get", exp.column(x), _lit("$"), _lit("string")))
    as_text = _call("transform", items, exp.Lambda(this=text, expressions=[x]))
    behaviour = n.args.get("on_error")
    on_error: exp.Expr = (_call("array") if behaviour == "EMPTY ARRAY" else _fail("JSON_QUERY: the JSON value is not an array")
                          if behaviour == "ERROR" else exp.Null())
    on_error = exp.Cast(this=on_error, to=exp.DataType.build("ARRAY<STRING>"))
    return exp.Case(ifs=[exp.If(this=_invalid(n.this), true=on_error), exp.If(this=exp.Is(this=v.copy(), expression=exp.Null()), true=exp.Null()),
                         exp.If(this=exp.Is(this=items.copy(), expression=exp.Null()), true=on_error.copy())], default=as_text)


def json_exists(n: JsonExists, path: str) -> exp.Expr:
    doc = n.this
    v = _at(doc, path)
    behaviour = n.args.get("on_error") or "FALSE"
    on_error = {"TRUE": exp.true(), "FALSE": exp.false(), "UNKNOWN": exp.Null()}.get(behaviour) or _fail("JSON_EXISTS: the JSON value is not valid")
    there = exp.and_(exp.Not(this=exp.Is(this=v.copy(), expression=exp.Null())), exp.Not(this=_call("is_variant_null", v.copy())))
    return exp.Case(ifs=[exp.If(this=exp.Is(this=doc.copy(), expression=exp.Null()), true=exp.Null()),
                         exp.If(this=_invalid(doc), true=on_error)], default=there)


def json_text(value: exp.Expr, t: exp.DataType, raw: bool = False) -> exp.Expr:
    """``value`` written as JSON ('null' for NULL); ``raw``: it is JSON text already (a nested
    JSON constructor's), inserted as it is."""
    if raw:
        return exp.Coalesce(this=value, expressions=[_lit("null")])
    whole = _call("to_json", exp.Array(expressions=[value]))
    text: exp.Expr = _call("regexp_extract", whole, _lit("^\\[(.*)\\]$"), exp.Literal.number(1))
    if T.is_type(t, *T.FLOATS):
        text = _call("regexp_replace", text, _lit("E([0-9])"), _lit("E+$1"))
    return text


def is_json_constructor(e: exp.Expr) -> bool:
    return isinstance(e, (exp.JSONObject, JsonArray)) or (isinstance(e, exp.Anonymous) and e.name.upper() in ("JSON_STRING", "JSON"))


def json_string(value: exp.Expr, t: exp.DataType) -> exp.Expr:
    return exp.Case(ifs=[exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.Null())], default=json_text(value, t))


class Member:
    """One value of JSON_OBJECT or JSON_ARRAY: rewritten for Spark, with its bound type, and
    whether it is JSON text already."""

    def __init__(self, value: exp.Expr, t: exp.DataType, raw: bool) -> None:
        self.value, self.type, self.raw = value, t, raw

    def text(self) -> exp.Expr:
        return json_text(self.value, self.type, self.raw)


def _members(parts: Sequence[exp.Expr], values: Sequence[exp.Expr], absent: bool) -> exp.Expr:
    """The members joined with ',', each left out when ``absent`` and its value is NULL."""
    kept = [exp.If(this=exp.Is(this=v.copy(), expression=exp.Null()), true=exp.Null(), false=p) if absent else p
            for p, v in zip(parts, values, strict=True)]
    return _call("concat_ws", _lit(","), *kept) if kept else _lit("")


def json_object(keys: list[exp.Expr], members: list[Member], absent: bool) -> exp.Expr:
    pairs = [_call("concat", json_text(k, T.STRING), _lit(":"), m.text()) for k, m in zip(keys, members, strict=True)]
    return _call("concat", _lit("{"), _members(pairs, [m.value for m in members], absent), _lit("}"))


def json_array(members: list[Member], absent: bool) -> exp.Expr:
    items = [m.text() for m in members]
    return _call("concat", _lit("["), _members(items, [m.value for m in members], absent), _lit("]"))
