"""Hints for syntax errors whose cause is a known, common mistake."""

from __future__ import annotations

from sqlglot import Token, TokenType, exp

from planner.dialect.keywords import ACCEPTED_RESERVED, NILADIC_FUNCTIONS, RESERVED, STRICTLY_RESERVED
from planner.errors import SqlError
from planner.logical.walk import find_all
from planner.source import SourceText, Span

STATEMENT_STARTS = {
    "SELECT", "INSERT", "CREATE", "DROP", "ALTER", "SET", "RESET", "SHOW", "DESCRIBE", "DESC",
    "EXPLAIN", "USE", "EXECUTE", "WITH", "STOP", "HELP", "QUIT", "EXIT", "BEGIN", "VALUES",
}

SPARK_WINDOW_HINT = (
    "Spark's window(ts, '1 minute') is not Flink SQL; use a window table function: "
    "FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
    "... GROUP BY window_start, window_end"
)


def _index_of(tokens: list[Token], tok: Token) -> int:
    for i, t in enumerate(tokens):
        if t is tok:
            return i
    return -1


def syntax_hint(source: SourceText, tokens: list[Token], tok: Token, description: str) -> str | None:
    """A hint for the parse error at ``tok`` in the statement ``tokens``, or None."""
    i = _index_of(tokens, tok)
    upper = tok.text.upper()
    prev = tokens[i - 1] if i > 0 else None
    nxt = tokens[i + 1] if 0 <= i < len(tokens) - 1 else None

    # GROUP BY window(ts, '1 minute') / session_window(...)
    for t in tokens[max(0, i - 3) : i + 2]:
        j = _index_of(tokens, t)
        after = tokens[j + 1] if j + 1 < len(tokens) else None
        if t.text.upper() in ("WINDOW", "SESSION_WINDOW") and after is not None and after.token_type == TokenType.L_PAREN:
            return SPARK_WINDOW_HINT

    # a statement keyword at the start of a line after something complete: a missing ';'
    if upper in STATEMENT_STARTS and i > 0 and prev is not None:
        between = source.text[prev.end + 1 : tok.start]
        if "\n" in between:
            return f"is a ';' missing before `{tok.text}`? Each statement ends with ';'"

    # a reserved word used as a name
    if tok.token_type != TokenType.IDENTIFIER and upper in RESERVED:
        used_as_name = (
            prev is not None
            and prev.token_type in (TokenType.COMMA, TokenType.SELECT, TokenType.DOT, TokenType.L_PAREN, TokenType.ALIAS)
        ) or (nxt is not None and nxt.token_type in (TokenType.COMMA, TokenType.DOT, TokenType.FROM))
        if used_as_name:
            return f"`{tok.text}` is a reserved word in Flink SQL; to use it as a name, quote it: `{tok.text.lower()}`"

    if description.startswith("Expecting )") and tok is tokens[-1]:
        return "a parenthesis is not closed"
    if upper == "=" and prev is not None and prev.token_type == TokenType.STRING:
        return None
    if prev is not None and prev.token_type == TokenType.STRING and tok.token_type == TokenType.STRING:
        return "two strings in a row: is a ',' missing?"
    return None


_UNIT_FIRST = frozenset(("TIMESTAMPADD", "TIMESTAMPDIFF"))


def _reads_as_keyword(word: str, column: exp.Column) -> bool:
    """`user` (a function Flink calls without parentheses), or the unit of TIMESTAMPDIFF(DAY, ...)."""
    if word in NILADIC_FUNCTIONS:
        return True
    call = column.parent
    return (
        isinstance(call, exp.Anonymous)
        and call.name.upper() in _UNIT_FIRST
        and bool(call.expressions)
        and call.expressions[0] is column
    )


def reserved_name_error(tree: exp.Expr, source: SourceText, offset: int = 0) -> SqlError | None:
    """A word Flink's parser reserves, used unquoted as a name (`SELECT value FROM t`, `AS views`,
    `CREATE TABLE out`, `B.dateTime`): Flink rejects it, wherever it stands. Only the functions
    Flink reads without parentheses stay (`SELECT user` is the USER function)."""
    for ident in find_all(tree, exp.Identifier):
        word = ident.name.upper()
        if ident.quoted or word not in STRICTLY_RESERVED or word in ACCEPTED_RESERVED:
            continue
        parent = ident.parent
        if isinstance(parent, exp.Column) and not parent.table and _reads_as_keyword(word, parent):
            continue
        start = ident.meta.get("start")
        if start is None:
            continue
        return SqlError(
            f"`{ident.name}` is a reserved word in Flink SQL; quote it: `{ident.name}`",
            source,
            Span(start, ident.meta.get("end", start) + 1),
            f"a reserved word is a name only in backquotes: `{ident.name}`",
        )
    return None
