"""How Flink reads text against an explicit pattern (``TO_TIMESTAMP(s, fmt)``, ``TO_DATE(s, fmt)``,
``UNIX_TIMESTAMP(s, fmt)``, ``TO_TIMESTAMP_LTZ(s, fmt)``): its time fields overflow into the next
ones (hour 24 is the next day's midnight, '10:61' is 11:01, hour 99 is four days and three hours
on), a day past the month's end is the month's last day (February 30 is February 29; in
TO_TIMESTAMP_LTZ it runs on, to March 1), and a month above 12 or a day above 31 gives NULL (Flink 2.3's answers, tests/functions/cases/time.txt). Spark reads none of those:
its answer stands when it has one, and this reading is taken only when it gives NULL.

Only patterns made of ``yyyy``, ``MM``, ``dd``, ``HH``, ``mm``, ``ss``, ``S...`` and separators
are read so (a literal pattern, known when the query is planned); any other stays Spark's alone.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqlengine.translate.calls import call as _call
from sqlengine.translate.calls import lit as _lit

# the canonical text the overflowed fields are written into, and the pattern that reads it
CANONICAL = "yyyy-MM-dd HH:mm:ss[.SSSSSSSSS]"
# a time field may overflow, by up to 9 digits (999,999,999 hours still fit the arithmetic)
_FIELDS = {"yyyy": r"([0-9]{4})", "MM": r"([0-9]{2})", "dd": r"([0-9]{2})", "HH": r"([0-9]{2,9})", "mm": r"([0-9]{2,9})",
           "ss": r"([0-9]{2,9})"}
_LAST_DAY = "9999-12-31"  # past it Spark fails the query instead of giving NULL
_DAY_SECONDS = 86_400


def compile_pattern(pattern: str) -> tuple[str, list[str]] | None:
    """The regular expression of ``pattern`` and its fields in order, or None when the pattern
    has a letter other than those above, or lacks the year, month or day."""
    regex, fields, i = "^", [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            return None  # a quoted literal: left to Spark
        if not c.isalpha():
            regex += re.escape(c)
            i += 1
            continue
        j = i
        while j < len(pattern) and pattern[j] == c:
            j += 1
        run = pattern[i:j]
        if c == "S":
            regex += f"([0-9]{{{len(run)}}})"
            fields.append("S")
        elif run in _FIELDS and run not in fields:
            regex += _FIELDS[run]
            fields.append(run)
        else:
            return None
        i = j
    if not {"yyyy", "MM", "dd"} <= set(fields):
        return None
    return regex + "$", fields


def _number(text: exp.Expr, regex: str, group: int, kind: str = "BIGINT") -> exp.Expr:
    return exp.TryCast(this=_call("regexp_extract", text.copy(), _lit(regex), exp.Literal.number(group)),
                       to=exp.DataType.build(kind))


def _two(n: exp.Expr) -> exp.Expr:
    return _call("lpad", exp.Cast(this=n, to=exp.DataType.build("STRING")), exp.Literal.number(2), _lit("0"))


def overflowed_text(text: exp.Expr, pattern: str, day_overflow: bool = False) -> exp.Expr | None:
    """``text`` read against ``pattern`` as Flink reads it, written in CANONICAL form (NULL when
    it does not match, or its month or day is out of range); None when the pattern is not one of
    those read so. ``day_overflow``: a day past the month's end runs into the next month
    (TO_TIMESTAMP_LTZ: February 30 is March 1) instead of stopping at its last day."""
    compiled = compile_pattern(pattern)
    if compiled is None:
        return None
    regex, fields = compiled

    def field(name: str, kind: str = "BIGINT") -> exp.Expr:
        return _number(text, regex, fields.index(name) + 1, kind) if name in fields else exp.Literal.number(0)

    year, month, day = field("yyyy", "INT"), field("MM", "INT"), field("dd", "INT")
    first = _call("make_date", year, month, exp.Literal.number(1))
    if day_overflow:
        date = _call("date_add", first, exp.Sub(this=day, expression=exp.Literal.number(1)))
    else:
        last = _call("day", _call("last_day", first.copy()))
        date = _call("make_date", year.copy(), month.copy(), _call("least", day, last))
    # built trees print without parentheses of their own: each part is wrapped in one
    seconds = exp.Paren(this=exp.Add(this=exp.Add(this=exp.Mul(this=field("HH"), expression=exp.Literal.number(3600)),
                                                  expression=exp.Mul(this=field("mm"), expression=exp.Literal.number(60))),
                                     expression=field("ss")))
    days = exp.Cast(this=exp.IntDiv(this=seconds, expression=exp.Literal.number(_DAY_SECONDS)), to=exp.DataType.build("INT"))
    rest = exp.Paren(this=exp.Mod(this=seconds.copy(), expression=exp.Literal.number(_DAY_SECONDS)))
    clock = [
        _two(exp.IntDiv(this=rest, expression=exp.Literal.number(3600))), _lit(":"),
        _two(exp.Mod(this=exp.Paren(this=exp.IntDiv(this=rest.copy(), expression=exp.Literal.number(60))),
                     expression=exp.Literal.number(60))),
        _lit(":"), _two(exp.Mod(this=rest.copy(), expression=exp.Literal.number(60))),
    ]
    if "S" in fields:
        clock += [_lit("."), _call("regexp_extract", text.copy(), _lit(regex), exp.Literal.number(fields.index("S") + 1))]
    moved = _call("date_add", date, days)
    written = _call("concat", exp.Cast(this=moved.copy(), to=exp.DataType.build("STRING")), _lit(" "), *clock)
    in_range = exp.and_(
        exp.RegexpLike(this=text.copy(), expression=_lit(regex)),
        exp.Between(this=month.copy(), low=exp.Literal.number(1), high=exp.Literal.number(12)),
        exp.Between(this=day.copy(), low=exp.Literal.number(1), high=exp.Literal.number(31)),
    )
    # checked in a second CASE: Spark evaluates a CASE's conditions in order, so the date is
    # only computed for text whose fields are in range
    within = exp.LTE(this=moved, expression=exp.Cast(this=_lit(_LAST_DAY), to=exp.DataType.build("DATE")))
    return exp.Case(ifs=[exp.If(this=in_range, true=exp.Case(ifs=[exp.If(this=within, true=written)]))])


def read_with_overflow(function: str, text: exp.Expr, fmt: exp.Expr, day_overflow: bool = False) -> exp.Expr:
    """Spark's ``function(text, fmt)`` (to_timestamp, to_date, unix_timestamp), or, where it gives
    NULL, the same function of the text Flink reads (``overflowed_text``)."""
    spark = _call(function, text, fmt)
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return spark
    written = overflowed_text(text, fmt.name, day_overflow)
    if written is None:
        return spark
    return exp.Coalesce(this=spark, expressions=[_call(function, written, _lit(CANONICAL))])
