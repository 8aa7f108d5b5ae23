"""Flink built-ins whose result is Java's own handling of text, composed of Spark's built-ins and
checked against Flink 2.3 value by value (tests/functions/cases/string.txt and json.txt):

- HASH_CODE(x): Java's hashCode of the value: for a string the absolute value of String.hashCode
  (s[0]*31^(n-1) + ... over the UTF-16 code units, in 32-bit arithmetic; a character beyond
  U+FFFF is two units), an integer's own value (a BIGINT's high and low halves XORed), a
  BOOLEAN's 1231 or 1237;
- JSON_QUOTE(s): s as a JSON string literal, escaping '"', '\\', '/', \\b, \\f, \\n, \\r, \\t and
  every character above U+007F as \\uxxxx (Flink 2.3 writes a character beyond U+FFFF as its code
  point, then its low surrogate);
- JSON_UNQUOTE(s): when s starts with a valid JSON string literal and ends with '"', the
  characters between its first and last, unescaped (so '"a", "b"' gives 'a", "b'); else s as it is.

Spark's strings split into characters (code points) with ``split(s, '')``; ``ascii`` gives a
character's code point.
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp

from planner.logical import typing as T

_STRING_HASH = (
    "CASE WHEN __s IS NULL THEN NULL ELSE abs(aggregate(split(__s, ''), 0, (__h, __c) -> "
    "CASE WHEN ascii(__c) > 65535 THEN (__h * 31 + (55296 + shiftright(ascii(__c) - 65536, 10))) * 31 "
    "+ (56320 + ((ascii(__c) - 65536) & 1023)) ELSE __h * 31 + ascii(__c) END)) END"
)
_ESCAPES = {34: "char(92), char(34)", 92: "char(92), char(92)", 47: "char(92), '/'", 8: "char(92), 'b'",
            12: "char(92), 'f'", 10: "char(92), 'n'", 13: "char(92), 'r'", 9: "char(92), 't'"}
_QUOTE = (
    "CASE WHEN __s IS NULL THEN NULL ELSE concat(char(34), array_join(transform(split(__s, ''), __c -> CASE "
    + " ".join(f"WHEN ascii(__c) = {code} THEN concat({text})" for code, text in _ESCAPES.items())
    + " WHEN ascii(__c) > 65535 THEN concat(char(92), 'u', lower(hex(ascii(__c))), char(92), 'u', "
    "lower(hex(56320 + ((ascii(__c) - 65536) & 1023))))"
    " WHEN ascii(__c) > 127 THEN concat(char(92), 'u', lower(lpad(hex(ascii(__c)), 4, '0'))) ELSE __c END), ''), char(34)) END"
)
# Flink 2.3 unquotes text that starts with a JSON string literal (what follows it is not read)
# and ends with '"': the characters between the first and the last, their escapes undone and a
# bare '"' kept (read here as JSON once each bare '"' is escaped)
_UNQUOTE = (
    "CASE WHEN __s IS NULL THEN NULL WHEN char_length(__s) >= 2 AND endswith(__s, char(34)) "
    "AND regexp_extract(__s, __first, 1) <> '' "
    "AND from_json(concat('[', regexp_extract(__s, __first, 1), ']'), 'array<string>') IS NOT NULL "
    "THEN from_json(concat('[', char(34), regexp_replace(substr(__s, 2, char_length(__s) - 2), __bare, __escaped), "
    "char(34), ']'), 'array<string>')[0] ELSE __s END"
)
_LITERALS = {
    "__first": r'^("(?:[^"\\]|\\.)*")',  # the leading JSON string literal
    "__bare": r'(?<!\\)((?:\\\\)*)"',  # a '"' after an even run of backslashes
    "__escaped": r'$1\\"',
}


@functools.cache
def _template(text: str) -> exp.Expr:
    return sqlglot.parse_one(text, read="spark")


def _fill(text: str, s: exp.Expr) -> exp.Expr:
    """The template with ``s`` for __s and the regular expressions of ``_LITERALS`` as literals
    (sqlglot writes their backslashes as Spark reads them). transform copies the template: the
    cached tree is never changed."""
    def put(n: exp.Expr) -> exp.Expr:
        if isinstance(n, exp.Column) and n.name == "__s":
            return s.copy()
        if isinstance(n, exp.Column) and n.name in _LITERALS:
            return exp.Literal.string(_LITERALS[n.name])
        return n

    return _template(text).transform(put)


def hash_code(x: exp.Expr, t: exp.DataType) -> exp.Expr:
    """Of a string, an integer or a BOOLEAN (the checker refuses the other types:
    ``planner.analysis.check.functions.hash_code_runs``)."""
    if T.is_type(t, *T.STRINGS):
        return _fill(_STRING_HASH, x)
    if T.is_type(t, exp.DType.BIGINT):  # Long.hashCode: (int) (v ^ (v >>> 32))
        mixed = exp.BitwiseXor(this=x.copy(), expression=exp.Anonymous(this="shiftrightunsigned", expressions=[x.copy(), exp.Literal.number(32)]))
        return exp.Cast(this=mixed, to=exp.DataType.build("INT"))
    if T.is_type(t, exp.DType.BOOLEAN):
        return exp.Case(ifs=[exp.If(this=x.copy(), true=exp.Literal.number(1231)),
                             exp.If(this=exp.Not(this=x.copy()), true=exp.Literal.number(1237))])
    return exp.Cast(this=x.copy(), to=exp.DataType.build("INT"))


def json_quote(s: exp.Expr) -> exp.Expr:
    return _fill(_QUOTE, s)


def json_unquote(s: exp.Expr) -> exp.Expr:
    return _fill(_UNQUOTE, s)
