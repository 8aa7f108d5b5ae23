"""Result types of expressions, following Flink's rules where they matter for results and sinks:
integer division stays integer, AVG of an integer column is an integer, COUNT is BIGINT, SUM of
an integer column is BIGINT (of DECIMAL(p, s): DECIMAL(38, s)), string functions give STRING."""

from __future__ import annotations

from sqlglot import exp

from planner.dialect import parse_type

D = exp.DType

BIGINT = parse_type("BIGINT")
INT = parse_type("INT")
DOUBLE = parse_type("DOUBLE")
BOOLEAN = parse_type("BOOLEAN")
STRING = parse_type("STRING")
TIMESTAMP3 = parse_type("TIMESTAMP(3)")
TIMESTAMP_LTZ3 = parse_type("TIMESTAMP_LTZ(3)")
DATE = parse_type("DATE")
BYTES = parse_type("BYTES")
VARIANT = parse_type("VARIANT")
UNKNOWN = exp.DataType(this=D.UNKNOWN)

INTEGERS = (D.TINYINT, D.SMALLINT, D.INT, D.BIGINT)
FLOATS = (D.FLOAT, D.DOUBLE)
STRINGS = (D.CHAR, D.VARCHAR, D.TEXT, D.NCHAR, D.NVARCHAR)
TIMESTAMPS = (D.TIMESTAMP, D.TIMESTAMPLTZ, D.TIMESTAMPTZ)

STRING_FUNCS = {
    "UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "CONCAT", "CONCAT_WS", "SUBSTRING", "SUBSTR",
    "REPLACE", "REGEXP_REPLACE", "REGEXP_EXTRACT", "SPLIT_INDEX", "DATE_FORMAT", "INITCAP",
    "LPAD", "RPAD", "REPEAT", "REVERSE", "MD5", "SHA1", "SHA256", "TO_BASE64", "FROM_BASE64",
    "JSON_VALUE", "CHR", "UUID", "LEFT", "RIGHT", "OVERLAY", "DECODE", "PARSE_URL",
    "CAST_STRING", "TYPEOF", "JSON_QUERY", "JSON_STRING", "JSON_OBJECT", "JSON_ARRAY",
    "JSON_QUOTE", "JSON_UNQUOTE",
}
INT_FUNCS = {"CHAR_LENGTH", "CHARACTER_LENGTH", "LENGTH", "POSITION", "LOCATE", "INSTR", "ASCII",
             "HOUR", "MINUTE", "SECOND", "YEAR", "MONTH", "DAYOFMONTH", "DAYOFWEEK", "DAYOFYEAR",
             "WEEK", "QUARTER", "EXTRACT", "CARDINALITY", "HASH_CODE"}
BIGINT_FUNCS = {"COUNT", "UNIX_TIMESTAMP", "TIMESTAMPDIFF", "ROW_NUMBER", "RANK", "DENSE_RANK"}
DOUBLE_FUNCS = {"RAND", "SQRT", "LN", "LOG", "LOG10", "LOG2", "EXP", "POWER", "POW", "SIN", "COS",
                "TAN", "ASIN", "ACOS", "ATAN", "ATAN2", "DEGREES", "RADIANS", "PI", "E", "STDDEV_POP",
                "STDDEV_SAMP", "VAR_POP", "VAR_SAMP", "STDDEV", "VARIANCE"}
BOOL_FUNCS = {"REGEXP", "IS_ALPHA", "IS_DIGIT", "IS_DECIMAL", "LIKE", "SIMILAR", "JSON_EXISTS"}
TIMESTAMP_FUNCS = {"TO_TIMESTAMP", "TUMBLE_START", "TUMBLE_END", "HOP_START", "HOP_END",
                   "SESSION_START", "SESSION_END",
                   "TUMBLE_ROWTIME", "HOP_ROWTIME", "SESSION_ROWTIME", "LOCALTIMESTAMP", "NOW",
                   "DATE_TRUNC", "TIMESTAMPADD", "CURRENT_WATERMARK"}
LTZ_FUNCS = {"PROCTIME", "CURRENT_TIMESTAMP", "TO_TIMESTAMP_LTZ", "CURRENT_ROW_TIMESTAMP",
             "TUMBLE_PROCTIME", "HOP_PROCTIME", "SESSION_PROCTIME"}
DATE_FUNCS = {"TO_DATE", "CURRENT_DATE", "DATE"}
BYTES_FUNCS = {"ENCODE"}
VARIANT_FUNCS = {"PARSE_JSON", "TRY_PARSE_JSON"}


def is_type(t: exp.DataType, *types: exp.DType) -> bool:
    return isinstance(t, exp.DataType) and t.this in types


def _params(t: exp.DataType) -> list[int]:
    out = []
    for p in t.expressions:
        node = p.this if isinstance(p, exp.DataTypeParam) else p
        try:
            out.append(int(node.name))
        except (ValueError, AttributeError):
            pass
    return out


def decimal(p: int, s: int) -> exp.DataType:
    return parse_type(f"DECIMAL({min(p, 38)}, {min(s, 38)})")


def decimal_quotient(a: exp.DataType, b: exp.DataType) -> exp.DataType:
    """The type of a DECIMAL division, Flink's (and Spark's): scale max(6, s1 + p2 + 1),
    precision p1 - s1 + s2 + scale; above 38 digits the scale gives way, down to 6 digits."""
    (p1, s1), (p2, s2) = decimal_ps(a), decimal_ps(b)
    scale = max(6, s1 + p2 + 1)
    precision = p1 - s1 + s2 + scale
    if precision > 38:
        scale = max(38 - (precision - scale), min(scale, 6))
        precision = 38
    return decimal(precision, scale)


def decimal_ps(t: exp.DataType) -> tuple[int, int]:
    if is_type(t, D.DECIMAL):
        ps = _params(t)
        return (ps[0] if ps else 10, ps[1] if len(ps) > 1 else 0)
    if is_type(t, D.TINYINT):
        return (3, 0)
    if is_type(t, D.SMALLINT):
        return (5, 0)
    if is_type(t, D.INT):
        return (10, 0)
    if is_type(t, D.BIGINT):
        return (19, 0)
    return (38, 18)


def set_operation_type(a: exp.DataType, b: exp.DataType) -> exp.DataType:
    """The type of a column of UNION, INTERSECT or EXCEPT from its types in two inputs: numbers
    widen to their common type, any other type is the first input's."""
    return wider(a, b) if is_type(a, *INTEGERS, *FLOATS, D.DECIMAL) else a


def wider(a: exp.DataType, b: exp.DataType) -> exp.DataType:
    """The common type of two numeric types (for + - * and CASE branches)."""
    if is_type(a, D.UNKNOWN) or is_type(a, D.NULL):
        return b
    if is_type(b, D.UNKNOWN) or is_type(b, D.NULL):
        return a
    if is_type(a, *FLOATS) or is_type(b, *FLOATS):
        return DOUBLE
    if is_type(a, D.DECIMAL) or is_type(b, D.DECIMAL):
        (p1, s1), (p2, s2) = decimal_ps(a), decimal_ps(b)
        s = max(s1, s2)
        return decimal(max(p1 - s1, p2 - s2) + s, s)
    if is_type(a, *INTEGERS) and is_type(b, *INTEGERS):
        return a if INTEGERS.index(a.this) >= INTEGERS.index(b.this) else b
    return a


def literal_type(lit: exp.Literal) -> exp.DataType:
    if lit.is_string:
        return STRING
    text = lit.name
    if "." in text or "e" in text.lower():
        if "e" in text.lower():
            return DOUBLE
        whole, frac = text.split(".", 1)
        digits = len(whole.lstrip("-")) + len(frac)
        return decimal(max(digits, 1), len(frac))
    value = int(text)
    return INT if -(2**31) <= value < 2**31 else BIGINT


def agg_type(func: str, arg: exp.DataType | None) -> exp.DataType:
    func = func.upper()
    if func in ("COUNT", "APPROX_COUNT_DISTINCT"):
        return BIGINT
    if arg is None:
        return UNKNOWN
    if func == "SUM":
        if is_type(arg, *INTEGERS):
            return BIGINT
        if is_type(arg, D.DECIMAL):
            return decimal(38, decimal_ps(arg)[1])
        return arg
    if func in ("AVG", "STDDEV_POP", "STDDEV_SAMP", "VAR_POP", "VAR_SAMP", "STDDEV", "VARIANCE"):
        # Flink's (LogicalTypeMerging.findAvgAggType): an integer column's own type (its average
        # truncated), DECIMAL(38, max(6, s)) for a DECIMAL(p, s), a float's own type
        if is_type(arg, D.DECIMAL):
            return decimal(38, max(6, decimal_ps(arg)[1]))
        return arg
    if func in ("MIN", "MAX", "FIRST_VALUE", "LAST_VALUE"):
        return arg
    if func in ("COLLECT",):
        return exp.DataType(this=D.LIST, expressions=[arg], nested=True)
    if func in ("ARRAY_AGG",):
        return exp.DataType(this=D.ARRAY, expressions=[arg], nested=True)
    if func in ("JSON_ARRAYAGG", "JSON_OBJECTAGG"):
        return STRING
    if func in ("LISTAGG",):
        return STRING
    if func in DOUBLE_FUNCS:
        return DOUBLE
    return arg


# collections of strings, as Flink 2.3 types them
COLLECTION_FUNCS = {"SPLIT": "ARRAY<STRING>", "REGEXP_EXTRACT_ALL": "ARRAY<STRING>", "STR_TO_MAP": "MAP<STRING, STRING>"}


def function_type(name: str, args: list[exp.DataType]) -> exp.DataType:
    n = name.upper()
    if n in STRING_FUNCS:
        return STRING
    if n in COLLECTION_FUNCS:
        return parse_type(COLLECTION_FUNCS[n])
    if n in INT_FUNCS:
        return BIGINT if n in ("EXTRACT",) else INT
    if n in BIGINT_FUNCS:
        return BIGINT
    if n in DOUBLE_FUNCS:
        return DOUBLE
    if n in BOOL_FUNCS:
        return BOOLEAN
    if n in LTZ_FUNCS:
        return TIMESTAMP_LTZ3
    if n in TIMESTAMP_FUNCS:
        return TIMESTAMP3
    if n in DATE_FUNCS:
        return DATE
    if n in BYTES_FUNCS:
        return BYTES
    if n in VARIANT_FUNCS:
        return VARIANT
    if n in ("ABS", "CEIL", "CEILING", "FLOOR", "ROUND", "TRUNCATE", "MOD", "SIGN") and args:
        return args[0] if n != "MOD" else wider(args[0], args[-1])
    if n in ("COALESCE", "IFNULL", "NULLIF", "GREATEST", "LEAST", "IF") and args:
        out = args[1] if n == "IF" and len(args) > 1 else args[0]
        for a in args[1:]:
            out = wider(out, a) if is_type(out, *INTEGERS, *FLOATS, D.DECIMAL) else out
        return out
    return UNKNOWN
