"""The result type of a bound expression, derived from its operands' types as Flink derives it."""

from __future__ import annotations

from sqlglot import exp

from planner.binder import structured
from planner.binder.names import AGG_NAMES, func_name
from planner.dialect import parse_type
from planner.dialect.json_syntax import JsonQuery, JsonValue
from planner.logical import typing as T
from planner.logical.fields import Field
from planner.udf import UserFunction


def user_result_type(udf: UserFunction) -> exp.DataType:
    """What a call of a user function returns (UNKNOWN for a JVM function, which is not loaded)."""
    sig = udf.signature
    return parse_type(sig.result) if sig is not None else T.UNKNOWN


def _struct_field(t: exp.DataType, name: str) -> exp.DataType:
    if T.is_type(t, exp.DType.STRUCT, exp.DType.OBJECT):
        for member in t.expressions:
            if isinstance(member, exp.ColumnDef) and member.name == name:
                return member.args.get("kind") or T.UNKNOWN
    return T.UNKNOWN


def type_of(node: exp.Expr, fields: dict[str, Field]) -> exp.DataType:
    """The type of a bound expression over ``fields`` (by internal name)."""
    if isinstance(node, exp.Column):
        f = fields.get(node.name)
        return f.type if f is not None else T.UNKNOWN
    if isinstance(node, exp.Dot):
        return _struct_field(type_of(node.this, fields), node.expression.name)
    if isinstance(node, exp.Bracket) and T.is_type(type_of(node.this, fields), exp.DType.VARIANT):
        return T.VARIANT  # a VARIANT's member is a VARIANT
    if isinstance(node, exp.Paren):
        return type_of(node.this, fields)
    if isinstance(node, exp.Literal):
        return T.literal_type(node)
    if isinstance(node, exp.Boolean):
        return T.BOOLEAN
    if isinstance(node, exp.Null):
        return exp.DataType(this=exp.DType.NULL)
    if isinstance(node, (exp.Cast, exp.TryCast)):
        return node.to
    if isinstance(node, exp.Neg):
        return type_of(node.this, fields)
    if isinstance(node, (exp.Predicate, exp.Connector, exp.Not, exp.Like, exp.In, exp.Between, exp.Is)):
        return T.BOOLEAN
    if isinstance(node, (exp.DPipe, exp.Concat)):
        return T.STRING
    if isinstance(node, exp.Array) and node.expressions:  # ARRAY[...]: its elements' type
        elements = [type_of(e, fields) for e in node.expressions]
        known = [t for t in elements if not T.is_type(t, exp.DType.UNKNOWN, exp.DType.NULL)]
        if not known:
            return T.UNKNOWN
        element = known[0]
        for t in known[1:]:
            if T.is_type(element, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL) and T.is_type(t, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL):
                element = T.wider(element, t)
        return exp.DataType(this=exp.DType.ARRAY, expressions=[element], nested=True)
    if isinstance(node, exp.Interval):
        return exp.DataType(this=exp.DType.INTERVAL)
    if isinstance(node, exp.Div):
        a, b = type_of(node.this, fields), type_of(node.expression, fields)
        decimals = T.is_type(a, exp.DType.DECIMAL) or T.is_type(b, exp.DType.DECIMAL)
        if decimals and not (T.is_type(a, *T.FLOATS) or T.is_type(b, *T.FLOATS)):
            return T.decimal_quotient(a, b)
        return T.wider(a, b)
    if isinstance(node, (exp.Add, exp.Sub)):
        a, b = type_of(node.this, fields), type_of(node.expression, fields)
        if T.is_type(a, *T.TIMESTAMPS, exp.DType.DATE):
            return a
        return T.wider(a, b)
    if isinstance(node, exp.Mul):
        a, b = type_of(node.this, fields), type_of(node.expression, fields)
        if T.is_type(a, exp.DType.DECIMAL) or T.is_type(b, exp.DType.DECIMAL):
            (p1, s1), (p2, s2) = T.decimal_ps(a), T.decimal_ps(b)
            if not (T.is_type(a, *T.FLOATS) or T.is_type(b, *T.FLOATS)):
                return T.decimal(p1 + p2, s1 + s2)
        return T.wider(a, b)
    if isinstance(node, exp.Mod):
        return T.wider(type_of(node.this, fields), type_of(node.expression, fields))
    if isinstance(node, exp.Case):
        out = T.UNKNOWN
        for branch in [i.args.get("true") for i in node.args.get("ifs") or []] + [node.args.get("default")]:
            if branch is not None:
                bt = type_of(branch, fields)
                out = bt if T.is_type(out, exp.DType.UNKNOWN, exp.DType.NULL) else (
                    T.wider(out, bt) if T.is_type(out, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL) else out
                )
        return out
    if isinstance(node, (exp.If, exp.Coalesce)):  # the branches' (arguments') common type, as Flink's
        parts = [node.args.get("true"), node.args.get("false")] if isinstance(node, exp.If) else [node.this, *node.expressions]
        out = T.UNKNOWN
        for part in (p for p in parts if p is not None):
            pt = type_of(part, fields)
            if T.is_type(out, exp.DType.UNKNOWN, exp.DType.NULL):
                out = pt
            elif T.is_type(out, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL) and T.is_type(pt, *T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL):
                out = T.wider(out, pt)
        return out
    if isinstance(node, (exp.Lower, exp.Upper, exp.Trim, exp.Substring, exp.RegexpExtract, exp.Initcap)):
        return T.STRING
    if isinstance(node, (exp.Hour, exp.Minute, exp.Second, exp.Year, exp.Month, exp.Day, exp.Length)):
        return T.INT
    if isinstance(node, exp.Extract):
        return T.BIGINT
    if isinstance(node, (exp.Round, exp.Ceil, exp.Floor)) and node.args.get("to") is None:
        return _rounded_type(type_of(node.this, fields), node.args.get("decimals") if isinstance(node, exp.Round) else None)
    if isinstance(node, exp.Abs):
        return type_of(node.this, fields)
    if isinstance(node, exp.CurrentTimestamp):
        return T.TIMESTAMP_LTZ3
    if isinstance(node, (JsonValue, JsonQuery)) and isinstance(node.args.get("returning"), exp.DataType):
        returning: exp.DataType = node.args["returning"]
        return returning
    if isinstance(node, exp.JSONObject):  # sqlglot names it J_S_O_N_OBJECT
        return T.STRING
    if isinstance(node, exp.Anonymous) and node.name.upper() in structured.NAMES:
        return structured.call_type(node, lambda e: type_of(e, fields))
    if isinstance(node, exp.Anonymous) and "user_function" in node.meta:
        return user_result_type(node.meta["user_function"])
    if isinstance(node, exp.Anonymous) and node.name.upper() == "TIMESTAMPADD" and len(node.expressions) == 3:
        return type_of(node.expressions[2], fields)  # a DATE stays a DATE, as in Flink
    if isinstance(node, exp.Anonymous) and node.name.upper() == "TRUNCATE" and node.expressions:
        digits = node.expressions[1] if len(node.expressions) > 1 else None
        return _rounded_type(type_of(node.expressions[0], fields), digits)
    if isinstance(node, exp.Func):
        args = [type_of(a, fields) for a in node.iter_expressions() if isinstance(a, exp.Expr)]
        name = func_name(node)
        if name in AGG_NAMES or isinstance(node, exp.AggFunc):
            return T.agg_type(name, args[0] if args else None)
        return T.function_type(name, args)
    return T.UNKNOWN


def _rounded_type(t: exp.DataType, digits: exp.Expr | None) -> exp.DataType:
    """ROUND(x, d), CEIL(x), FLOOR(x) of DECIMAL(p, s) are DECIMAL(p - s + d' + 1, d') with
    d' = max(d, 0) (d = 0 for CEIL and FLOOR), as Flink types them: one more integer digit for
    the carry (ROUND(9.99, 1) is 10.0). Other types keep their type."""
    if not T.is_type(t, exp.DType.DECIMAL):
        return t
    p, s = T.decimal_ps(t)
    d = 0
    if isinstance(digits, exp.Literal) and not digits.is_string:
        d = max(int(digits.name), 0)
    elif isinstance(digits, exp.Neg) and isinstance(digits.this, exp.Literal):
        d = 0
    elif digits is not None:
        return t
    d = min(d, s)
    return T.decimal(min(p - s + d + 1, 38), d)
