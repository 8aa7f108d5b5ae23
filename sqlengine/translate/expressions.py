"""Bound Flink expressions to Spark SQL text for ``F.expr``: sqlglot's Spark generator after a
rewrite that gives Spark Flink's semantics where the two differ.

- INT / INT is integer division in Flink (``DIV`` in Spark);
- REGEXP_EXTRACT is NULL when nothing matches (Spark returns ''), group 0 by default;
- SPLIT_INDEX splits on a literal separator and is NULL out of range;
- AVG of an integer column is an integer (sum DIV count);
- PROCTIME() is the processing time, FLOOR/CEIL(ts TO unit) truncate timestamps;
- TO_TIMESTAMP defaults to Flink's 'yyyy-MM-dd HH:mm:ss';
- TO_TIMESTAMP_LTZ(epoch, 0 | 3) is Spark's timestamp_seconds / timestamp_millis (Spark's own
  to_timestamp_ltz takes no epoch), LOCALTIMESTAMP is Spark's localtimestamp() cut to
  milliseconds (Spark reads the bare word as a column; Flink's is a TIMESTAMP(3)).

tests/functions compares each built-in with Flink's values; what still differs is listed there.
"""

from __future__ import annotations

from typing import TypeVar

from sqlglot import exp

from planner.binder import structured
from planner.binder.joins import column_literal
from planner.binder.types import type_of
from planner.dialect import Flink, parse_type
from planner.dialect.json_syntax import JsonArray, JsonExists, JsonQuery, JsonValue, lax_path
from planner.logical import typing as T
from planner.logical.fields import Field
from planner.logical.specs import AggCall, AggFunc
from planner.udf import UserFunction
from sqlengine.translate import collection_aggregates, collections, comparisons, functions, java_text, json_functions, time_zone, variance
from sqlengine.translate.calls import call as _call
from sqlengine.translate.calls import lit as _lit
from sqlengine.translate.lenient_time import read_with_overflow
from sqlengine.translate.spark_sql import spark_sql

E = TypeVar("E", bound=exp.Expr)


class Untranslatable(AssertionError):
    """An expression the checker (planner.analysis.check) should have refused: a bug in sqlengine."""


_REGEX_META = frozenset(".$|()[]{}^?*+\\")


def _java_quote(sep: str) -> str:
    """A literal separator as a Java regex. Plain characters stay as they are (a one-character
    separator then takes String.split's fast path, no regex); others go in \\Q...\\E."""
    if sep and not _REGEX_META.intersection(sep):
        return sep
    return "\\Q" + sep.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def _or_as_in(n: exp.Or) -> exp.Expr:
    """``c = 'a' OR c = 'b' OR ...`` as ``c IN ('a', 'b', ...)``, as Flink's planner turns it into one
    search: the same truth values (NULL when c is NULL), and c is computed once. Spark evaluates
    each comparison, and a column computed in the source (a Nexmark field) was computed each time:
    q3 ran at 0.83 of the hand-written job with isin."""
    column, values = None, []
    for part in n.flatten():
        found = column_literal(part)
        if found is None or (column is not None and found[0] != column):
            return n
        column = found[0]
        values.append(found[1].copy())
    if column is None or len(values) < 2 or len({v.is_string for v in values}) > 1:
        return n  # mixed strings and numbers: IN would compare them in one common type
    return exp.In(this=column.copy(), expressions=values)


class SparkExpressions:
    def __init__(self, fields: dict[str, Field], zone: str = "UTC"):
        self.fields = fields
        self.zone = zone  # 'table.local-time-zone' (sqlengine.translate.time_zone)
        self._depth = 0  # rewrite() calls itself on parts; the zone's markers are placed once, at the top

    def type(self, e: exp.Expr) -> exp.DataType:
        if isinstance(e, time_zone.MARKERS):
            return time_zone.marker_type(self.value_type(e.this))
        return type_of(e, self.fields)

    def array_type(self, e: exp.Expr) -> exp.DataType | None:
        """ARRAY<T> when ``e`` is an array (the binder types a column's arrays, not an ARRAY[...]
        constructor or what array functions return); else None."""
        t = self.type(e)
        if T.is_type(t, exp.DType.ARRAY):
            return t
        if isinstance(e, exp.Array) and e.expressions:
            types = [self.value_type(x) for x in e.expressions]
            element = next((x for x in types if not T.is_type(x, exp.DType.NULL, exp.DType.UNKNOWN)), None)
            return exp.DataType(this=exp.DType.ARRAY, expressions=[element], nested=True) if element is not None else None
        if isinstance(e, collections.SAME_ARRAY):
            return self.array_type(e.this)
        listed = isinstance(e, collections.SAME_ARRAY_LISTED) or (isinstance(e, exp.Anonymous) and e.name.upper() in collections.SAME_ARRAY_NAMED)
        if listed and e.expressions:
            return self.array_type(e.expressions[0])
        if isinstance(e, exp.Paren):
            return self.array_type(e.this)
        values = isinstance(e, exp.Anonymous) and e.name.upper() == "MAP_VALUES" and bool(e.expressions)
        if isinstance(e, exp.MapKeys) or values:
            m = self.map_type(e.expressions[0] if values else e.this)
            if m is not None:
                return exp.DataType(this=exp.DType.ARRAY, expressions=[m.expressions[1 if values else 0]], nested=True)
        if isinstance(e, exp.Anonymous) and e.name.upper() == "MAP_ENTRIES" and e.expressions:
            m = self.map_type(e.expressions[0])
            if m is not None:
                entry = collections.struct_type([("key", m.expressions[0]), ("value", m.expressions[1])])
                return exp.DataType(this=exp.DType.ARRAY, expressions=[entry], nested=True)
        return None

    def map_type(self, e: exp.Expr) -> exp.DataType | None:
        """MAP<K, V> when ``e`` is a map (a column's, or a MAP[...] constructor's); else None."""
        t = self.type(e)
        if T.is_type(t, exp.DType.MAP):
            return t
        if isinstance(e, exp.VarMap):
            keys, values = e.args["keys"].expressions, e.args["values"].expressions
            return exp.DataType(this=exp.DType.MAP, expressions=[self.value_type(keys[0]), self.value_type(values[0])], nested=True)
        return None

    def row_type(self, e: exp.Expr) -> exp.DataType | None:
        """ROW<...> when ``e`` is a ROW(...) constructor (its fields EXPR$0, EXPR$1, ... as Flink
        names them), OBJECT<...> when an OBJECT_OF or OBJECT_UPDATE call; else None."""
        if isinstance(e, exp.Anonymous) and e.name.upper() == "ROW":
            return collections.struct_type([(f"EXPR${i}", self.value_type(a)) for i, a in enumerate(e.expressions)])
        if isinstance(e, exp.Anonymous) and e.name.upper() in structured.NAMES:  # its values' types, constructors' too
            return structured.call_type(e, self.value_type)
        return None

    def value_type(self, e: exp.Expr) -> exp.DataType:
        """``e``'s type, with the element and field types of the ARRAY[...], MAP[...] and ROW(...)
        constructors the binder leaves untyped, at any depth (ARRAY[ROW(...)], ROW(1, ROW(...)))."""
        return self.array_type(e) or self.row_type(e) or self.map_type(e) or self.type(e)

    def integral(self, e: exp.Expr) -> bool:
        return T.is_type(self.type(e), *T.INTEGERS)

    def rewrite(self, node: exp.Expr) -> exp.Expr:
        node = node.copy()
        if self.zone != "UTC" and self._depth == 0:
            node = time_zone.localize(node, self)
        self._depth += 1
        try:
            return node.transform(self._fix)
        finally:
            self._depth -= 1

    def _fix(self, n: exp.Expr) -> exp.Expr:
        if isinstance(n, time_zone.MARKERS):
            return time_zone.spark(n, self.rewrite(n.this))
        if isinstance(n, (exp.Localtime, exp.CurrentTime)) or (self.zone != "UTC" and isinstance(n, (exp.Localtimestamp, exp.CurrentDate))):
            return time_zone.now(n, self.zone) or n  # LOCALTIME and CURRENT_TIME are TIME(0) in Flink
        return self._fix_flink(n)

    def _fix_flink(self, n: exp.Expr) -> exp.Expr:
        if (compared := comparisons.flink_comparison(n, self)) is not None:
            return compared
        if isinstance(n, exp.Div) and self.integral(n.this) and self.integral(n.expression):
            d = self.fixed_children(n)
            return functions.failing_on_zero(exp.IntDiv(this=d.this, expression=d.expression), d.this, d.expression)
        if isinstance(n, exp.Div) and T.is_type(self.type(n), *T.FLOATS):
            return functions.java_divide(self.fixed_children(n))
        if isinstance(n, (exp.Div, exp.Mod)) and all(T.is_type(self.type(x), *T.INTEGERS, exp.DType.DECIMAL) for x in (n.this, n.expression)):
            exact = self.fixed_children(n)
            return functions.failing_on_zero(exact, exact.this, exact.expression)
        if isinstance(n, exp.Replace):
            return functions.java_replace(self.fixed_children(n))
        if isinstance(n, exp.Overlay):
            return functions.overlay(self.fixed_children(n))
        # a node replaced here is not visited further: what it is built from is rewritten first
        if isinstance(n, exp.RegexpExtract):
            r = self.fixed_children(n)
            group = r.args.get("group") or exp.Literal.number(0)
            extract = _call("regexp_extract", r.this.copy(), r.expression.copy(), group)
            return exp.Case(ifs=[exp.If(this=exp.RegexpLike(this=r.this.copy(), expression=r.expression.copy()), true=extract)])
        if isinstance(n, exp.Avg) and self.integral(n.this):
            inner = self.rewrite(n.this)
            return exp.IntDiv(this=exp.Sum(this=inner.copy()), expression=exp.Count(this=inner.copy()))
        if isinstance(n, (exp.Floor, exp.Ceil)) and n.args.get("to") is not None:
            unit = n.args["to"].name.upper()
            value = self.rewrite(n.this)
            trunc = _call("date_trunc", _lit(unit), value)
            if isinstance(n, exp.Floor):
                return trunc
            bumped = exp.Add(this=trunc.copy(), expression=exp.Interval(this=_lit("1"), unit=exp.var(unit)))
            return exp.Case(ifs=[exp.If(this=exp.EQ(this=trunc.copy(), expression=value.copy()), true=value.copy())], default=bumped)
        if isinstance(n, exp.Or):
            return _or_as_in(n)
        if isinstance(n, exp.Split):
            return self._split(n)
        if isinstance(n, exp.Anonymous):
            return self._anonymous(n)
        if isinstance(n, (exp.Greatest, exp.Least)):
            return functions.null_if_any_null(self.fixed_children(n))
        if isinstance(n, exp.Cast):  # TryCast too
            # of the bound expression, before it is rewritten
            source = self.value_type(n.this)
            return functions.cast(self.fixed_children(n), source)
        if isinstance(n, (exp.Ln, exp.Log)):
            return functions.logarithm(self.fixed_children(n))
        if isinstance(n, (exp.Ceil, exp.Floor)) and T.is_type(self.type(n.this), *T.FLOATS):
            return functions.whole_double(self.fixed_children(n))
        if isinstance(n, exp.Substring) and n.args.get("length") is not None:
            sub = self.fixed_children(n)
            return functions.null_below_zero(sub, sub.args["length"])
        if isinstance(n, exp.Pad):
            pad = self.fixed_children(n)
            empty = exp.EQ(this=pad.args["fill_pattern"].copy(), expression=_lit(""))
            return functions.null_below_zero(pad, pad.expression, empty)
        if isinstance(n, exp.RegexpReplace) and n.args.get("replacement") is not None:
            return functions.literal_replacement(self.fixed_children(n))
        if isinstance(n, exp.ConcatWs):  # Spark's concat_ws skips NULLs as Flink's does
            return _call("concat_ws", *self.fixed_children(n).expressions)
        if isinstance(n, exp.RegexpExtractAll):
            return functions.extract_all(self.fixed_children(n))
        if isinstance(n, exp.Extract):
            return functions.extract(self.fixed_children(n))
        if isinstance(n, exp.Week):  # Flink's WEEK is the ISO week
            return _call("weekofyear", self.rewrite(n.this))
        if isinstance(n, exp.Localtimestamp):
            return functions.milliseconds(_call("localtimestamp"))
        if isinstance(n, exp.Bracket) and len(n.expressions) == 1 and T.is_type(self.type(n.this), exp.DType.VARIANT):
            b = self.fixed_children(n)
            return collections.variant_member(b.this, b.expressions[0], T.is_type(self.type(n.expressions[0]), *T.INTEGERS))
        if isinstance(n, exp.Bracket) and len(n.expressions) == 1 and self._array_subscript(n):
            b = self.fixed_children(n)
            return collections.element_at(b.this, b.expressions[0])
        if isinstance(n, exp.ArrayContains):
            c = self.fixed_children(n)
            return collections.contains(c.this, c.expression)
        if isinstance(n, exp.ArraySlice):
            sl = self.fixed_children(n)
            return collections.slice_(sl.this, sl.args["start"], sl.args.get("end"))
        if isinstance(n, exp.ArrayReverse):
            return _call("reverse", self.rewrite(n.this))
        if isinstance(n, (JsonValue, JsonQuery, JsonExists)):
            return self._json_query(n)
        if isinstance(n, (exp.JSONObject, JsonArray)):
            return self._json_constructor(n)
        if isinstance(n, exp.StrToMap):
            m = self.fixed_children(n)
            return collections.str_to_map([a for a in (m.this, m.args.get("pair_delim"), m.args.get("key_value_delim")) if a is not None])
        return n

    def _array_subscript(self, n: exp.Bracket) -> bool:
        """``n`` reads an array (1-based in Flink, 0-based in Spark), not a map: its base is typed
        as an array, or, untyped (a function's or a subscript's result), not as a map and with an
        integer index."""
        if self.array_type(n.this) is not None:
            return True
        return self.map_type(n.this) is None and T.is_type(self.type(n.expressions[0]), *T.INTEGERS)

    def _json_query(self, n: JsonValue | JsonQuery | JsonExists) -> exp.Expr:
        path = lax_path(n)
        if path is None:
            raise Untranslatable(f"{n.sql_name()} with a path that is not a literal, or in strict mode")
        f = self.fixed_children(n)
        if isinstance(f, JsonValue):
            return json_functions.json_value(f, path)
        if isinstance(f, JsonQuery):
            return json_functions.json_query(f, path)
        return json_functions.json_exists(f, path)

    def _member(self, value: exp.Expr) -> json_functions.Member:
        return json_functions.Member(self.rewrite(value), self.type(value), json_functions.is_json_constructor(value))

    def _json_constructor(self, n: exp.JSONObject | JsonArray) -> exp.Expr:
        if isinstance(n, JsonArray):  # ABSENT ON NULL unless it says NULL ON NULL
            return json_functions.json_array([self._member(v) for v in n.expressions], n.args.get("on_null") != "NULL")
        pairs = [kv for kv in n.expressions if isinstance(kv, exp.JSONKeyValue)]
        keys = [self.rewrite(kv.this) for kv in pairs]
        absent = (n.args.get("null_handling") or "").upper().startswith("ABSENT")  # NULL ON NULL unless ABSENT
        return json_functions.json_object(keys, [self._member(kv.expression) for kv in pairs], absent)

    def _split(self, n: exp.Split) -> exp.Expr:
        """Flink's SPLIT takes a literal delimiter (Spark's split a regex), keeps empty strings,
        and with an empty delimiter splits into characters."""
        sep = n.expression
        if not (isinstance(sep, exp.Literal) and sep.is_string):
            raise Untranslatable("SPLIT with a delimiter that is not a literal")
        pattern = _java_quote(sep.this) if sep.this else "(?!$)"
        text = self.rewrite(n.this)
        parts = _call("split", text, _lit(pattern), exp.Literal.number(-1))
        empty = exp.Cast(this=exp.Array(expressions=[]), to=exp.DataType.build("ARRAY<STRING>", dialect="spark"))
        # Flink splits '' into no parts (Spark's split gives [''])
        return exp.If(this=exp.EQ(this=text.copy(), expression=_lit("")), true=empty, false=parts)

    def fixed_children(self, n: E) -> E:
        """A copy of ``n`` with its arguments rewritten: a node that ``fix`` replaces is not
        visited further, so what it is built from must be rewritten first."""
        out = n.copy()
        for key, value in out.args.items():
            if isinstance(value, exp.Expr) and not isinstance(value, exp.DataType):
                out.set(key, self.rewrite(value))
            elif isinstance(value, list):
                out.set(key, [self.rewrite(v) if isinstance(v, exp.Expr) else v for v in value])
        return out

    def _anonymous(self, n: exp.Anonymous) -> exp.Expr:
        name = n.name.upper()
        types = [self.type(a) for a in n.expressions]  # of the bound arguments
        udf = n.meta.get("user_function")
        fixed = self.fixed_children(n)
        args = list(fixed.expressions)
        if udf is not None:
            return self._user_call(udf, n, args, types)
        if name == "PROCTIME":
            return exp.CurrentTimestamp()
        if name in ("OBJECT_OF", "OBJECT_UPDATE"):
            return collections.structured(name, args, self.type(n.expressions[0]) if name == "OBJECT_UPDATE" else None)
        if name == "FROM_UNIXTIME" and args and self.zone != "UTC":
            return time_zone.from_unixtime(args, self.zone)
        if name == "UNIX_TIMESTAMP" and args and self.zone != "UTC":
            return time_zone.unix_timestamp(args, self.zone)
        if name == "SPLIT_INDEX":
            s, sep, idx = args
            if not (isinstance(sep, exp.Literal) and sep.is_string):
                raise Untranslatable("SPLIT_INDEX with a separator that is not a literal")
            parts = _call("split", s, _lit(_java_quote(sep.this)), exp.Literal.number(-1))
            element = _call("try_element_at", parts, exp.Add(this=idx.copy(), expression=exp.Literal.number(1)))
            return exp.Case(ifs=[exp.If(this=exp.GTE(this=idx.copy(), expression=exp.Literal.number(0)), true=element)])
        if name == "MAP_UNION":  # a key in several maps keeps the last map's value (mapKeyDedupPolicy LAST_WIN), as in Flink
            return _call("map_concat", *args)
        if name == "ROW":  # Flink names a ROW constructor's fields EXPR$0, EXPR$1, ...
            return _call("named_struct", *(x for i, a in enumerate(args) for x in (_lit(f"EXPR${i}"), a)))
        if name == "JSON" and len(args) == 1:  # JSON text as JSON in JSON_OBJECT / JSON_ARRAY, written compactly
            return _call("to_json", _call("parse_json", *args))
        if name == "JSON_STRING" and len(args) == 1:
            return json_functions.json_string(args[0], types[0])
        if name == "ELEMENT" and len(args) == 1:
            return collections.element(args[0])
        if name == "ARRAY_SORT" and args:
            return collections.sort(args)
        if name == "HASH_CODE" and len(args) == 1:
            return java_text.hash_code(args[0], types[0])
        if name in ("JSON_QUOTE", "JSON_UNQUOTE") and len(args) == 1:
            return java_text.json_quote(args[0]) if name == "JSON_QUOTE" else java_text.json_unquote(args[0])
        found = functions.named(name, args)
        if found is not None:
            return found
        if name == "TO_TIMESTAMP_LTZ":
            return self._to_timestamp_ltz(args, types)
        if name in ("DATE_FORMAT",) and args and T.is_type(types[0], *T.STRINGS):
            # Flink parses a string argument with the default format first
            ts = _call("to_timestamp", args[0], _lit("yyyy-MM-dd HH:mm:ss"))
            return _call("date_format", ts, *args[1:])
        return fixed

    def _to_timestamp_ltz(self, args: list[exp.Expr], types: list[exp.DataType]) -> exp.Expr:
        """TO_TIMESTAMP_LTZ(epoch [, 0 | 3]) or (text [, format]); the checker refuses other
        precisions (planner.analysis.check.functions)."""
        value = args[0]
        if T.is_type(types[0], *T.STRINGS):
            if len(args) > 1:  # its fields overflow, a day past the month's end too
                return read_with_overflow("to_timestamp", value, args[1], day_overflow=True)
            return _call("to_timestamp", functions.end_of_day_as_next_day(value), _lit("yyyy-MM-dd HH:mm:ss"))
        precision = args[1].name if len(args) > 1 else "3"
        bigint = exp.DataType.build("BIGINT")
        if precision not in ("0", "3"):
            raise Untranslatable(f"TO_TIMESTAMP_LTZ with precision {precision}")
        if T.is_type(types[0], *T.INTEGERS):
            return _call("timestamp_seconds" if precision == "0" else "timestamp_millis", value)
        if T.is_type(types[0], exp.DType.DECIMAL):  # Flink cuts the fraction toward zero
            return _call("timestamp_seconds" if precision == "0" else "timestamp_millis", exp.Cast(this=value, to=bigint))
        # a DOUBLE of seconds: the milliseconds of its exact binary value, cut toward zero (the
        # whole seconds, then the fraction's milliseconds: 1710510330.123 is ...30.1229999, so
        # .122); of milliseconds: its fraction kept (as microseconds); NULL outside years 0 to
        # 9999; all as Flink 2.3 gives them
        v = exp.Paren(this=value)
        thousand = exp.Literal.number(1000)
        if precision == "0":
            seconds: exp.Expr = v
            whole = exp.Cast(this=v.copy(), to=bigint)
            fraction = exp.Cast(this=exp.Mul(this=exp.Paren(this=exp.Sub(this=v.copy(), expression=whole.copy())), expression=thousand), to=bigint)
            stamp = _call("timestamp_millis", exp.Add(this=exp.Mul(this=whole, expression=thousand.copy()), expression=fraction))
        else:
            seconds = exp.Div(this=v, expression=thousand)
            stamp = _call("timestamp_micros", exp.Cast(this=exp.Mul(this=v.copy(), expression=thousand.copy()), to=bigint))
        inside = exp.Between(this=seconds, low=exp.Literal.number(-62167219200), high=exp.Literal.number(253402300799))
        return exp.Case(ifs=[exp.If(this=inside, true=stamp)])

    def _user_call(self, udf: UserFunction, call: exp.Expr, args: list[exp.Expr], types: list[exp.DataType]) -> exp.Expr:
        """A Python function's call, by the name it is registered under in the job's session
        (``sqlengine.translate.udfs``), each argument cast to the parameter's declared type."""
        from sqlengine.translate.udfs import spark_name
        from sqlengine.types import spark_type

        sig = udf.signature
        if sig is None:
            raise Untranslatable(f"the JVM function {udf.name}")
        cast: list[exp.Expr] = []
        for i, a in enumerate(args):
            declared = sig.param_type(i)
            if declared is None or types[i].sql(dialect=Flink) == parse_type(declared).sql(dialect=Flink):
                cast.append(a)
            else:
                to = exp.DataType.build(spark_type(declared).simpleString(), dialect="spark")
                cast.append(exp.Cast(this=a, to=to))
        return exp.Anonymous(this=spark_name(udf, call), expressions=cast)

    def sql(self, node: exp.Expr) -> str:
        """Spark SQL text of a bound expression (all identifiers backquoted)."""
        return spark_sql(self.rewrite(node))


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def is_plain_column(e: exp.Expr) -> bool:
    return isinstance(e, exp.Column) and not e.table


def _distinct_sql(exprs: SparkExpressions, f: AggFunc, args: tuple[exp.Expr, ...], filter_: exp.Expr | None) -> str:
    """COUNT/SUM/AVG(DISTINCT x) on a stream: the set of values seen (collect_set, which skips
    NULLs as DISTINCT does), then counted or summed. Spark refuses DISTINCT aggregates on
    streams; a set is a plain aggregate, kept per group (and per window) like Flink's state."""
    arg = exprs.rewrite(args[0]) if len(args) == 1 else exp.Struct(expressions=[exprs.rewrite(a) for a in args])
    values = _call("collect_set", arg)
    if len(args) > 1:  # COUNT(DISTINCT a, b) counts the combinations without a NULL
        cond = exp.and_(*[exp.Not(this=exp.Is(this=a.copy(), expression=exp.Null())) for a in args])
        filter_ = cond if filter_ is None else exp.and_(filter_.copy(), cond)
    agg: exp.Expr = values if filter_ is None else exp.Filter(this=values, expression=exp.Where(this=exprs.rewrite(filter_)))
    text = spark_sql(agg)
    if f == AggFunc.COUNT:
        return f"CAST(size({text}) AS BIGINT)"
    total = f"aggregate({text}, CAST(0 AS {_sum_type(exprs, args[0])}), (acc, v) -> acc + v)"
    if f == AggFunc.SUM:
        return f"CASE WHEN size({text}) = 0 THEN NULL ELSE {total} END"
    if f == AggFunc.AVG:
        op = "DIV" if exprs.integral(args[0]) else "/"
        return f"CASE WHEN size({text}) = 0 THEN NULL ELSE {total} {op} size({text}) END"
    raise Untranslatable(f"{f}(DISTINCT ...)")


def _sum_type(exprs: SparkExpressions, arg: exp.Expr) -> str:
    t = exprs.type(arg)
    if T.is_type(t, *T.INTEGERS):
        return "BIGINT"
    if T.is_type(t, exp.DType.DECIMAL):
        _, scale = T.decimal_ps(t)
        return f"DECIMAL(38, {scale})"
    return "DOUBLE"


def agg_sql(exprs: SparkExpressions, agg: AggCall) -> str:
    """An aggregate call with Flink's semantics, e.g. AVG(int) as sum DIV count."""
    f, args, distinct, star, filter_ = agg.func, agg.args, agg.distinct, agg.star, agg.filter
    if distinct and f in (AggFunc.MIN, AggFunc.MAX):
        distinct = False  # the same result either way
    if distinct and f in (AggFunc.COUNT, AggFunc.SUM, AggFunc.AVG) and args:
        return _distinct_sql(exprs, f, args, filter_)
    if f in collection_aggregates.FUNCTIONS and args:
        return collection_aggregates.collection_sql(agg, [exprs.sql(a) for a in args], [exprs.type(a) for a in args], exprs.sql(filter_) if filter_ is not None else None)
    if f in variance.FUNCTIONS and args:
        return variance.variance_sql(f, exprs.sql(args[0]), exprs.type(args[0]), exprs.sql(filter_) if filter_ is not None else None)
    if f == AggFunc.COUNT and star:
        call: exp.Expr = exp.Count(this=exp.Star())
    else:
        arg_nodes = [a.copy() for a in args]
        inner: exp.Expr = exp.Distinct(expressions=arg_nodes) if distinct else (arg_nodes[0] if arg_nodes else exp.Star())
        cls = _SQLGLOT_AGG.get(f)
        if cls is not None:
            call = cls(this=inner)
        else:
            rest: list[exp.Expr] = arg_nodes[1:]
            if f in (AggFunc.FIRST_VALUE, AggFunc.LAST_VALUE):
                rest = [exp.true()]  # Flink's FIRST_VALUE and LAST_VALUE ignore NULLs
            elif f == AggFunc.LISTAGG and not rest:
                rest = [exp.Literal.string(",")]  # Flink's default separator (Spark's is '')
            call = exp.Anonymous(this=_SPARK_AGG.get(f, f.value.lower()), expressions=[inner, *rest])
    if f == AggFunc.AVG and args and exprs.integral(args[0]):
        value = exprs.rewrite(args[0])
        s_expr: exp.Expr = exp.Sum(this=value)
        c_expr: exp.Expr = exp.Count(this=value.copy())
        if filter_ is not None:
            where = exprs.rewrite(filter_)
            s_expr = exp.Filter(this=s_expr, expression=exp.Where(this=where))
            c_expr = exp.Filter(this=c_expr, expression=exp.Where(this=where.copy()))
        return spark_sql(exp.IntDiv(this=s_expr, expression=c_expr))
    if filter_ is not None:
        call = exp.Filter(this=call, expression=exp.Where(this=filter_.copy()))
    return spark_sql(exprs.rewrite(call))


_SQLGLOT_AGG: dict[AggFunc, type[exp.AggFunc]] = {
    AggFunc.COUNT: exp.Count,
    AggFunc.SUM: exp.Sum,
    AggFunc.MIN: exp.Min,
    AggFunc.MAX: exp.Max,
    AggFunc.AVG: exp.Avg,
}
_SPARK_AGG = {
    AggFunc.FIRST_VALUE: "first",
    AggFunc.LAST_VALUE: "last",
    AggFunc.LISTAGG: "listagg",
    AggFunc.APPROX_COUNT_DISTINCT: "approx_count_distinct",
}
