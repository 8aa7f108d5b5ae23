"""Flink built-ins whose Spark counterpart differs in a way a composition of Spark built-ins
fixes, each found by the function suite (tests/functions, against Flink 2.3's values):

- GREATEST / LEAST are NULL when an argument is (Spark skips NULLs);
- IS_DIGIT / IS_ALPHA / IS_DECIMAL have no Spark counterpart: a regex, false for NULL;
- CAST to STRING writes booleans in upper case and timestamps with their type's fraction digits
  (Spark drops trailing zeros); CAST to TIMESTAMP(p) truncates to p digits (any p below 6); CAST to CHAR(n) /
  VARCHAR(n) cuts (and CHAR pads) to n characters; TRY_CAST between integers wraps as CAST does;
- INITCAP starts a word after any character but an ASCII letter or digit (Spark's after a space);
- OVERLAY leaves the string as it is when FROM is outside it, and drops the rest after a FOR of 0.
"""

from __future__ import annotations

import functools
import re

import sqlglot
from sqlglot import exp

from planner.logical import typing as T
from sqlengine.translate.calls import call as _call
from sqlengine.translate.calls import lit as _lit
from sqlengine.translate.lenient_time import read_with_overflow

_DIGITS = {"IS_DIGIT": "^\\p{Nd}+$", "IS_ALPHA": "^\\p{L}+$",
           "IS_DECIMAL": "^[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?$"}




def _length(t: exp.DataType) -> int | None:
    """The n of CHAR(n) / VARCHAR(n) / TIMESTAMP(p), when the type writes one."""
    params = t.expressions
    if params and isinstance(params[0].this, exp.Literal):
        return int(params[0].this.name)
    return None


def null_if_any_null(n: exp.Greatest | exp.Least) -> exp.Expr:
    args = [n.this, *n.expressions]
    any_null = exp.or_(*[exp.Is(this=a.copy(), expression=exp.Null()) for a in args])
    return exp.Case(ifs=[exp.If(this=any_null, true=exp.Null())], default=n)


# Flink's default text form of a timestamp; the fraction is optional when parsing
TIMESTAMP_TEXT = "yyyy-MM-dd HH:mm:ss"
PARSED = "yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]"
_LONG_MIN = exp.Literal.number(-9223372036854775808)

_SHA = {"SHA224": 224, "SHA256": 256, "SHA384": 384, "SHA512": 512}


def named(name: str, args: list[exp.Expr]) -> exp.Expr | None:
    """A Flink built-in that is a Spark built-in of another name or arity, else None."""
    if name in _SHA:
        return _call("sha2", *args, exp.Literal.number(_SHA[name]))
    if name == "INITCAP" and len(args) == 1:
        return initcap(args[0])
    if name == "TO_TIMESTAMP" and len(args) == 1:
        return _call("to_timestamp", end_of_day_as_next_day(args[0]), _lit(PARSED))
    if name in ("TO_TIMESTAMP", "TO_DATE") and len(args) == 2:  # an explicit pattern: its fields overflow
        return read_with_overflow(name.lower(), args[0], args[1])
    if name == "UNIX_TIMESTAMP" and args:
        # Flink answers text it cannot parse with Long.MIN_VALUE (Spark with NULL)
        text, fmt = unix_timestamp_text(args)
        read = read_with_overflow("unix_timestamp", text, fmt) if len(args) > 1 else _call("unix_timestamp", text, fmt)
        parsed = exp.Coalesce(this=read, expressions=[_LONG_MIN])
        return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=args[0].copy(), expression=exp.Null())), true=parsed)])
    if name == "CONVERT_TZ" and len(args) == 3:
        ts = _call("to_timestamp", args[0], _lit(PARSED))
        moved = _call("from_utc_timestamp", _call("to_utc_timestamp", ts, args[1]), args[2])
        return _call("date_format", moved, _lit(TIMESTAMP_TEXT))
    if name in ("LOG10", "LOG2") and len(args) == 1:
        return java_log(name.lower(), args[0])
    if name == "TRUNCATE":  # toward zero, to d digits (Spark has floor and ceil with a scale)
        x, digits = args[0], (args[1] if len(args) > 1 else exp.Literal.number(0))
        toward_zero = exp.If(this=exp.GTE(this=x.copy(), expression=exp.Literal.number(0)),
                             true=_call("floor", x.copy(), digits.copy()), false=_call("ceil", x.copy(), digits.copy()))
        return toward_zero
    return character_class(name, args[0]) if len(args) == 1 else None


def _is_null(e: exp.Expr) -> exp.Expr:
    return exp.Is(this=e.copy(), expression=exp.Null())


def _double(text: str) -> exp.Expr:
    return exp.Cast(this=_lit(text), to=exp.DataType.build("DOUBLE"))


def java_log(f: str, x: exp.Expr) -> exp.Expr:
    """Java's logarithm: NaN below 0 and -Infinity at 0 (Spark's ln, log10, log2 give NULL)."""
    return exp.Case(ifs=[exp.If(this=exp.LT(this=x.copy(), expression=exp.Literal.number(0)), true=_double("NaN")),
                         exp.If(this=exp.EQ(this=x.copy(), expression=exp.Literal.number(0)), true=_double("-Infinity"))],
                    default=_call(f, x))


def logarithm(n: exp.Expr) -> exp.Expr:
    """LN(x), LOG(x) (natural), LOG(b, x), and the LOG10 / LOG2 calls, as Java computes them."""
    if isinstance(n, exp.Ln):
        return java_log("ln", n.this)
    assert isinstance(n, exp.Log)
    if n.expression is None:
        return java_log("ln", n.this)
    return exp.Div(this=java_log("ln", n.expression), expression=java_log("ln", n.this))


def whole_double(n: exp.Ceil | exp.Floor) -> exp.Expr:
    """CEIL / FLOOR of a DOUBLE stay DOUBLE in Flink (Spark's are BIGINT, which overflows): a
    double of 2^52 or more is whole already, NaN and infinities stay."""
    spark = _call("ceil" if isinstance(n, exp.Ceil) else "floor", n.this)
    small = exp.LT(this=exp.Abs(this=n.this.copy()), expression=exp.Literal.number(4503599627370496))
    return exp.If(this=small, true=exp.Cast(this=spark, to=exp.DataType.build("DOUBLE")), false=n.this.copy())


def null_below_zero(n: exp.Expr, length: exp.Expr, *more: exp.Expr) -> exp.Expr:
    """SUBSTRING with a negative length, LPAD / RPAD with a negative length or an empty pad are
    NULL in Flink (Spark gives '' or the cut string)."""
    bad = [exp.LT(this=length.copy(), expression=exp.Literal.number(0)), *more]
    return exp.Case(ifs=[exp.If(this=exp.or_(*bad), true=exp.Null())], default=n)


def literal_replacement(n: exp.RegexpReplace) -> exp.Expr:
    """Flink's REGEXP_REPLACE takes the replacement literally ('$1' is '$1'); Spark's reads
    group references (``_quote_replacement``)."""
    return _call("regexp_replace", n.this, n.expression, _quote_replacement(n.args["replacement"]))


def _quote_replacement(r: exp.Expr) -> exp.Expr:
    """A regex replacement taken literally: '\\' and '$' escaped as Java's Matcher.quoteReplacement does."""
    return exp.Replace(this=exp.Replace(this=r, expression=_lit("\\"), replacement=_lit("\\\\")),
                       expression=_lit("$"), replacement=_lit("\\$"))


def java_divide(n: exp.Div) -> exp.Expr:
    """A DOUBLE or FLOAT divided by zero is Java's: Infinity, -Infinity, or NaN for 0 / 0 and NaN
    / 0 (Spark gives NULL). A divisor of -0.0 counts as 0.0 here (Java would flip the sign)."""
    a, b = n.this, n.expression
    zero = exp.Literal.number(0)
    by_zero = exp.Case(ifs=[
        exp.If(this=_call("isnan", a.copy()), true=_double("NaN")),
        exp.If(this=exp.GT(this=a.copy(), expression=zero.copy()), true=_double("Infinity")),
        exp.If(this=exp.LT(this=a.copy(), expression=zero.copy()), true=_double("-Infinity")),
        exp.If(this=exp.EQ(this=a.copy(), expression=zero.copy()), true=_double("NaN")),
    ])
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=b.copy(), expression=zero), true=by_zero)], default=n)


def java_replace(n: exp.Replace) -> exp.Expr:
    """Flink's REPLACE is Java's String.replace: an empty search string puts the replacement
    before every character and at the end ('ab' -> 'xaxbx'); Spark's replace returns the string.
    That case is a regex replace of the empty pattern, the replacement taken literally."""
    s, search, r = n.this, n.expression, n.args["replacement"]
    everywhere = _call("regexp_replace", s.copy(), _lit(""), _quote_replacement(r.copy()))
    plain = exp.Anonymous(this="replace", expressions=[s, search, r])
    if isinstance(search, exp.Literal):
        return everywhere if search.name == "" else plain
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=search.copy(), expression=_lit("")), true=everywhere)], default=plain)


# Flink's INITCAP (Calcite's): a word is a run of ASCII letters and digits; its first letter is
# upper-cased, the rest lower-cased; every other character, accented letters too, is left alone
# and starts a new word ('élan' is 'éLan'). Spark's initcap splits at spaces only. One character
# at a time, as an array of them.
_INITCAP = (
    "CASE WHEN char_length(__s) = 0 THEN __s ELSE array_join(transform(sequence(1, char_length(__s)), __i -> "
    "CASE WHEN substr(__s, __i, 1) RLIKE '^[a-zA-Z0-9]$' THEN IF(__i = 1 OR NOT substr(__s, __i - 1, 1) RLIKE '^[a-zA-Z0-9]$', "
    "upper(substr(__s, __i, 1)), lower(substr(__s, __i, 1))) ELSE substr(__s, __i, 1) END), '') END"
)


@functools.cache
def _initcap_template() -> exp.Expr:
    return sqlglot.parse_one(_INITCAP, read="spark")


def initcap(s: exp.Expr) -> exp.Expr:
    # transform copies the template: the cached tree is never changed
    return _initcap_template().transform(lambda n: s.copy() if isinstance(n, exp.Column) and n.name == "__s" else n)


def overlay(n: exp.Overlay) -> exp.Expr:
    """Flink's OVERLAY(s PLACING r FROM start [FOR len]) (checked against Flink 2.3): s itself
    when start is before its first or after its last character (an empty s too); with len 0 or
    less, nothing of s after the placed text (Spark keeps all of it)."""
    s, r, start = n.this, n.expression, n.args["from_"]
    length = n.args.get("for_") or _call("char_length", r.copy())
    outside = exp.or_(exp.LT(this=start.copy(), expression=exp.Literal.number(1)),
                      exp.GT(this=start.copy(), expression=_call("char_length", s.copy())))
    head = _call("concat", _call("substr", s.copy(), exp.Literal.number(1), exp.Sub(this=start.copy(), expression=exp.Literal.number(1))), r.copy())
    placed = _call("overlay", s.copy(), r.copy(), start.copy(), length.copy())
    return exp.Case(ifs=[exp.If(this=outside, true=s.copy()),
                         exp.If(this=exp.LTE(this=length.copy(), expression=exp.Literal.number(0)), true=head)], default=placed)


def extract(n: exp.Extract) -> exp.Expr:
    """EXTRACT(MILLISECOND | EPOCH FROM t): Spark's MILLISECOND counts the seconds too, and it
    has no EPOCH field; Flink's are the milliseconds of the second and whole seconds."""
    unit = n.this.name.upper()
    if unit == "MILLISECOND":
        return exp.Cast(this=_call("date_format", n.expression, _lit("SSS")), to=exp.DataType.build("BIGINT"))
    if unit == "EPOCH":
        return _call("unix_timestamp", n.expression)
    return n


def extract_all(n: exp.RegexpExtractAll) -> exp.Expr:
    """Without a group index, Flink extracts group 1 and is NULL when the regex has none (Spark
    fails the job); a regex with groups, or a given index, is Spark's regexp_extract_all."""
    if n.args.get("group") is None and _groups(n.expression) == 0:
        return exp.Cast(this=exp.Null(), to=exp.DataType.build("ARRAY<STRING>", dialect="spark"))
    return n


def _groups(regex: exp.Expr) -> int | None:
    """The capturing groups of a literal regex (Python's count; Java's syntax agrees on groups)."""
    if not (isinstance(regex, exp.Literal) and regex.is_string):
        return None
    try:
        return re.compile(regex.this).groups
    except re.error:
        return None


def character_class(name: str, arg: exp.Expr) -> exp.Expr | None:
    pattern = _DIGITS.get(name)
    if pattern is None:
        return None
    return exp.Coalesce(this=exp.RegexpLike(this=arg, expression=_lit(pattern)), expressions=[exp.false()])


# what Flink's CAST of text reads or fails the job on (TRY_CAST gives NULL)
_READ_FROM_TEXT = (*T.INTEGERS, *T.FLOATS, exp.DType.DECIMAL, exp.DType.BOOLEAN, exp.DType.DATE, exp.DType.TIME,
                   exp.DType.TIMESTAMP, exp.DType.TIMESTAMPLTZ)


def cast(n: exp.Cast, source: exp.DataType) -> exp.Expr:
    """``n`` (its argument already rewritten) with Flink's result; ``source`` is the argument's
    bound type. A CAST of text Flink cannot read fails the job, as Flink's does: Spark's cast
    (ANSI mode off) gives NULL for exactly that text, and the NULL raises."""
    out = _cast(n, source)
    typed_literal = bool(n.meta.get("typed_literal"))  # TIME '13:45:30': checked when it was bound
    if isinstance(n, exp.TryCast) or typed_literal or not T.is_type(source, *T.STRINGS) or not T.is_type(n.to, *_READ_FROM_TEXT):
        return out
    from planner.dialect import Flink

    words = f"' as {n.to.sql(dialect=Flink)} (CAST fails on text it cannot read, as in Flink; TRY_CAST gives NULL)"
    fail = _call("raise_error", _call("concat", _lit("Cannot read '"), n.this.copy(), _lit(words)))
    return exp.Coalesce(this=out, expressions=[exp.Case(ifs=[exp.If(this=exp.Not(this=_is_null(n.this)), true=fail)])])


def failing_on_zero(value: exp.Expr, dividend: exp.Expr, divisor: exp.Expr) -> exp.Expr:
    """An exact division or MOD (integers, DECIMAL) that fails the job when the divisor is 0, as
    Flink's does (Spark's, ANSI mode off, gives NULL); NULL stays NULL."""
    if isinstance(divisor, exp.Literal) and divisor.is_number and float(divisor.this) != 0:
        return value  # `MOD(x, 123)`: never 0
    zero = exp.and_(exp.Not(this=_is_null(dividend)), exp.EQ(this=divisor.copy(), expression=exp.Literal.number(0)))
    fail = _call("raise_error", _lit("Division by zero (Flink fails the job on it; a CASE WHEN can keep the divisor from 0)"))
    return exp.Coalesce(this=value, expressions=[exp.Case(ifs=[exp.If(this=zero, true=fail)])])


# the text Flink's CAST reads as a TIMESTAMP (Spark reads more: an ISO 'T', a zone, 'yyyy-MM',
# spaces around): a date, or a date, a space and H:m:s with any fraction; as a DATE, no 'T' after
# the date (Flink 2.3's verdicts, tests/functions/cases/cast.txt)
_TIMESTAMP_TEXT = r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}( [0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(\.[0-9]*)?)?$"
_NOT_DATE_TEXT = r"^\s*[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}T"
# midnight at the end of a day, which Flink reads as the next day's 00:00:00 (any other hour 24
# fails); Spark reads no hour 24
_END_OF_DAY_TEXT = r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2} 24:0{1,2}:0{1,2}(\.0*)?$"


def _read_as_flink(n: exp.Cast, source: exp.DataType) -> exp.Cast:
    """``n`` reading only the text Flink reads (other text becomes NULL, which CAST then fails on)."""
    if not T.is_type(source, *T.STRINGS):
        return n
    if T.is_type(n.to, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPLTZ):
        test: exp.Expr = exp.RegexpLike(this=n.this.copy(), expression=_lit(_TIMESTAMP_TEXT))
        read = end_of_day_as_next_day(n.this)
    elif T.is_type(n.to, exp.DType.DATE):
        test = exp.Not(this=exp.RegexpLike(this=n.this.copy(), expression=_lit(_NOT_DATE_TEXT)))
        read = n.this.copy()
    else:
        return n
    out = n.copy()
    out.set("this", exp.Case(ifs=[exp.If(this=test, true=read)]))
    return out


def unix_timestamp_text(args: list[exp.Expr]) -> tuple[exp.Expr, exp.Expr]:
    """UNIX_TIMESTAMP's text and format: the default format when none is given, whose text may
    be the end of a day (read as the next day's midnight)."""
    if len(args) > 1:
        return args[0], args[1]
    return end_of_day_as_next_day(args[0]), _lit(PARSED)


def end_of_day_as_next_day(text: exp.Expr) -> exp.Expr:
    """``text``, with 'yyyy-MM-dd 24:00:00' written as the next day's '00:00:00' (Flink's CAST,
    TO_TIMESTAMP and UNIX_TIMESTAMP read it so; Spark reads no hour 24)."""
    day = exp.Cast(this=_call("substring_index", text.copy(), _lit(" "), exp.Literal.number(1)), to=exp.DataType.build("DATE"))
    next_day = _call("concat", exp.Cast(this=_call("date_add", day, exp.Literal.number(1)), to=exp.DataType.build("STRING")), _lit(" 00:00:00"))
    return exp.Case(ifs=[exp.If(this=exp.RegexpLike(this=text.copy(), expression=_lit(_END_OF_DAY_TEXT)), true=next_day)], default=text.copy())


def _cast(n: exp.Cast, source: exp.DataType) -> exp.Expr:
    n = _read_as_flink(n, source)
    if n.meta.get("typed_literal") and n.to.is_type(exp.DType.TIME) and not n.to.expressions:
        n = n.copy()  # TIME '13:45:30.123' keeps its digits (a CAST to TIME without one is TIME(0))
        n.set("to", exp.DataType(this=exp.DType.TIME, expressions=[exp.DataTypeParam(this=exp.Literal.number(6))]))
    to = n.to
    if isinstance(n, exp.TryCast):
        if T.is_type(to, *T.INTEGERS) and T.is_type(source, *T.INTEGERS):
            return exp.Cast(this=n.this, to=to)
        return n
    if T.is_type(to, exp.DType.TEXT, exp.DType.VARCHAR, exp.DType.CHAR):
        return _to_string(n, to, source)
    if T.is_type(to, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPLTZ):
        p = _length(to)
        if p is not None and p < 6 and T.is_type(source, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPLTZ, *T.STRINGS):
            if T.is_type(to, exp.DType.TIMESTAMPLTZ):
                return _truncate_fraction(n, p, toward_epoch=True)
            if p in (0, 3):
                return _call("date_trunc", _lit("SECOND" if p == 0 else "MILLISECOND"), n)
            return _truncate_fraction(n, p)
    return n


def _seconds(micros: exp.Expr) -> exp.Expr:
    interval = exp.Cast(this=exp.Div(this=micros, expression=exp.Literal.number(1_000_000)), to=exp.DataType.build("DECIMAL(8, 6)"))
    return _call("make_dt_interval", *(exp.Literal.number(0) for _ in range(3)), interval)


def milliseconds(ts: exp.Expr) -> exp.Expr:
    """A TIMESTAMP (without zone) cut to milliseconds, as Flink's clock functions give it
    (LOCALTIMESTAMP is a TIMESTAMP(3); Spark's clock has microseconds)."""
    return _truncate_fraction(ts, 3)


def _truncate_fraction(ts: exp.Expr, p: int, *, toward_epoch: bool = False) -> exp.Expr:
    """``ts`` cut to ``p`` fraction digits (Spark's date_trunc has no unit for 1, 2, 4 or 5). A
    TIMESTAMP is cut as its fields are, to the earlier instant; a TIMESTAMP_LTZ as Flink cuts its
    epoch milliseconds, toward the epoch (1969-12-31 23:59:59.987 to LTZ(1) is 1970-01-01 00:00:00)."""
    unit = 10 ** (6 - p)
    micros = exp.Cast(this=_call("date_format", ts, _lit("SSSSSS")), to=exp.DataType.build("INT"))
    drop = _call("pmod", micros, exp.Literal.number(unit))
    earlier = exp.Sub(this=ts.copy(), expression=_seconds(drop.copy()))
    if not toward_epoch:
        return earlier
    before_epoch = exp.and_(exp.LT(this=_call("unix_micros", ts.copy()), expression=exp.Literal.number(0)),
                            exp.GT(this=drop.copy(), expression=exp.Literal.number(0)))
    later = exp.Add(this=ts.copy(), expression=_seconds(exp.Paren(this=exp.Sub(this=exp.Literal.number(unit), expression=drop.copy()))))
    return exp.If(this=before_epoch, true=later, false=earlier)


def _to_string(n: exp.Cast, to: exp.DataType, source: exp.DataType) -> exp.Expr:
    out: exp.Expr = n
    if T.is_type(source, exp.DType.ARRAY) and source.expressions:
        from sqlengine.translate import collections

        element = source.expressions[0]
        out = collections.to_string(n.this, element, lambda c, _: cast(c, element))
    elif T.is_type(source, exp.DType.MAP, exp.DType.LIST) and source.expressions:  # a MAP, a MULTISET
        from sqlengine.translate import collections

        key = source.expressions[0]
        value = source.expressions[1] if T.is_type(source, exp.DType.MAP) and len(source.expressions) > 1 else T.INT
        out = collections.map_to_string(n.this, key, value, lambda c, t: cast(c, t))
    elif T.is_type(source, exp.DType.OBJECT) or (T.is_type(source, exp.DType.STRUCT) and source.expressions):
        from sqlengine.translate import collections

        fields = [(f.name, f.args.get("kind") or exp.DataType.build("STRING")) for f in source.expressions if isinstance(f, exp.ColumnDef)]
        out = collections.row_to_string(n.this, fields, lambda c, t: cast(c, t), named=T.is_type(source, exp.DType.OBJECT))
    elif T.is_type(source, exp.DType.BOOLEAN):
        out = exp.Upper(this=n)
    elif T.is_type(source, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPLTZ):
        p = _length(source)
        fraction = "" if p == 0 else "." + "S" * (p if p is not None else 6)
        out = _call("date_format", n.this, _lit("yyyy-MM-dd HH:mm:ss" + fraction))
    elif T.is_type(source, exp.DType.TIME) and (_length(source) or 0) > 0:
        # Flink writes a TIME(p > 0) with its fraction's digits up to the last non-zero one, and
        # '.0' for none (13:45:30.1, 00:00:00.0); Spark leaves the fraction out when it is 0
        out = exp.Case(ifs=[exp.If(this=exp.EQ(this=_call("instr", n.copy(), _lit(".")), expression=exp.Literal.number(0)),
                                   true=_call("concat", n.copy(), _lit(".0")))], default=n)
    length = _length(to)
    if length is not None and T.is_type(to, exp.DType.VARCHAR, exp.DType.CHAR):
        out = exp.Substring(this=out, start=exp.Literal.number(1), length=exp.Literal.number(length))
        if T.is_type(to, exp.DType.CHAR):
            out = exp.Pad(this=out, expression=exp.Literal.number(length), fill_pattern=_lit(" "), is_left=False)
    return out
