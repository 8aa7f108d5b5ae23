"""A .sql file (or shell buffer) as a list of statements: tokenize once, split at `;` (keeping
``EXECUTE STATEMENT SET BEGIN ... END`` whole), parse each piece with the Flink dialect.

Every failure becomes a positioned ``SqlError``; nothing here raises anything else for bad input.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field

from sqlglot import Token, TokenType, exp
from sqlglot.errors import ParseError, TokenError

from planner.deep import deep
from planner.dialect import Flink, nodes
from planner.errors import SqlError
from planner.source import SourceText, Span
from planner.statements.hints import reserved_name_error, syntax_hint

_DIALECT = Flink()
log = logging.getLogger("sqlengine.parser")


@dataclass(frozen=True, eq=False)
class Statement:
    tree: exp.Expr
    source: SourceText
    span: Span
    tokens: tuple[Token, ...] = field(repr=False, default=())
    # comments after the statement's `;` (same line, or at the end of the file)
    trailing_comments: tuple[str, ...] = ()
    terminator: Token | None = field(repr=False, default=None)

    @property
    def text(self) -> str:
        return self.source.text[self.span.start : self.span.end]

    @property
    def line(self) -> int:
        return self.source.position(self.span.start).line

    @property
    def column(self) -> int:
        return self.source.position(self.span.start).column

    def sql(self, pretty: bool = False) -> str:
        return self.tree.sql(dialect=Flink, pretty=pretty)


@dataclass(frozen=True)
class ParsedScript:
    source: SourceText
    statements: tuple[Statement, ...]
    errors: tuple[SqlError, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


def tokenize(source: SourceText) -> list[Token]:
    tokenizer = _DIALECT.tokenizer()
    try:
        return tokenizer.tokenize(source.text)
    except TokenError:
        core = getattr(tokenizer, "_core", tokenizer)
        start = getattr(core, "_start", 0)
        ch = source.text[start : start + 2]
        if ch.startswith("'"):
            msg, hint = "Unterminated string literal", "close the string with ' (write '' for a quote inside it)"
        elif ch.startswith("`"):
            msg, hint = "Unterminated quoted identifier", "close the identifier with `"
        elif ch.startswith("/*"):
            msg, hint = "Unterminated comment", "close the comment with */"
        else:
            msg, hint = "Invalid character", None
        raise SqlError(msg, source, Span(start, start + 1), hint) from None


def _starts_statement_set(tokens: list[Token], i: int) -> int | None:
    """If a statement set opens at ``i``, the index of its first inner token."""
    words = [t.text.upper() for t in tokens[i : i + 12]]
    j = 0
    if words[:1] == ["EXPLAIN"]:
        j = 1
        while j < len(words) and words[j] in (
            "ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN", ",", "PLAN", "FOR"
        ):
            j += 1
    if words[j : j + 4] == ["EXECUTE", "STATEMENT", "SET", "BEGIN"]:
        return i + j + 4
    if words[j : j + 4] == ["BEGIN", "STATEMENT", "SET", ";"]:
        return i + j + 4
    return None


Piece = tuple[list[Token], list[list[Token]] | None, Token | None]


def split(tokens: list[Token]) -> list[Piece]:
    """Statements as token lists, with the `;` that ends each (None at the end of the text); a
    statement set also carries its inner statements' tokens."""
    out: list[Piece] = []
    i, n = 0, len(tokens)
    while i < n:
        if tokens[i].token_type == TokenType.SEMICOLON:
            i += 1
            continue
        inner_start = _starts_statement_set(tokens, i)
        if inner_start is not None:
            inner: list[list[Token]] = [[]]
            j = inner_start
            while j < n:
                tok = tokens[j]
                if tok.token_type == TokenType.END and not inner[-1]:
                    break
                if tok.token_type == TokenType.SEMICOLON:
                    inner.append([])
                else:
                    inner[-1].append(tok)
                j += 1
            inner = [s for s in inner if s]
            end = min(j, n - 1)
            semi = tokens[end + 1] if end + 1 < n and tokens[end + 1].token_type == TokenType.SEMICOLON else None
            out.append((tokens[i : end + 1], inner, semi))
            i = end + 1
            continue
        j = i
        while j < n and tokens[j].token_type != TokenType.SEMICOLON:
            j += 1
        out.append((tokens[i:j], None, tokens[j] if j < n else None))
        i = j + 1
    return out


def _span_of(tokens: list[Token]) -> Span:
    return Span(tokens[0].start, tokens[-1].end + 1)


def _no_variable_in_a_name(source: SourceText, tokens: list[Token]) -> None:
    """``t_${ENV}``: a `$` inside a name is one of its characters (``EXPR$0``), so the name would
    end at `{` and the rest read as something else. A variable is a whole name or value."""
    for name, brace in itertools.pairwise(tokens):
        if (brace.token_type == TokenType.L_BRACE and name.token_type in (TokenType.VAR, TokenType.IDENTIFIER) and name.text.endswith("$")
                and brace.start == name.end + 1):
            dollar = name.end
            raise SqlError("A ${variable} cannot be part of a name", source, Span(dollar, dollar + 1),
                           "define the whole name (--define TABLE=orders_prod) and write ${TABLE}, or quote a name with `$` in it")


def _parse_tokens(source: SourceText, tokens: list[Token]) -> exp.Expr:
    _no_variable_in_a_name(source, tokens)
    parser = _DIALECT.parser()
    try:
        trees = deep(parser.parse, tokens, source.text)
    except RecursionError:
        raise SqlError("Statement is nested too deeply to parse", source, _span_of(tokens)) from None
    except (ParseError, TokenError) as err:
        if isinstance(err, TokenError):
            raise SqlError(str(err), source, _span_of(tokens)) from None
        tok: Token | None = getattr(err, "token", None)
        desc = err.errors[0]["description"] if err.errors else str(err)
        at_end = tok is None or tok.token_type == TokenType.SENTINEL or "TokenType.SENTINEL" in desc
        if at_end or tok is None:
            last = tokens[-1]
            span = Span(last.end + 1, last.end + 2)
            message = _describe(desc, None)
            raise SqlError(message, source, span, _end_hint(desc)) from None
        span = Span(tok.start, tok.end + 1)
        message = _describe(desc, tok)
        raise SqlError(message, source, span, syntax_hint(source, tokens, tok, desc)) from None
    except Exception:  # a parser defect must not reach the user as a traceback
        log.exception("internal parser error on %r", source.text[tokens[0].start : tokens[-1].end + 1])
        raise SqlError(
            "Could not parse this statement (an internal error; details are in the log)",
            source,
            _span_of(tokens),
            code="E999",
        ) from None
    tree = trees[0] if trees else None
    if tree is None:
        raise SqlError("Empty statement", source, _span_of(tokens))
    reserved = reserved_name_error(tree, source)
    if reserved is not None:
        raise reserved
    return tree


def _describe(desc: str, tok: Token | None) -> str:
    """sqlglot's description, reworded to name the token found (or the end of the statement)."""
    desc = desc.split(" but got <Token", maxsplit=1)[0].replace("Expecting", "Expected")
    found = "at the end of the statement" if tok is None else f"`{tok.text}`"
    if desc.startswith("Unexpected `"):  # ours, worded already
        return desc
    if desc.startswith(("Invalid expression / Unexpected token", "Unexpected")):
        return f"Unexpected {found}" if tok is not None else "Unexpected end of the statement"
    if desc.startswith("Required keyword: "):
        where = f"after `{tok.text}`" if tok is not None else "at the end of the statement"
        return f"Expected an expression {where}"
    if tok is not None and f"`{tok.text}`" in desc:
        return desc
    return f"{desc}, found {found}" if tok is not None else f"{desc} {found}"


def _end_hint(desc: str) -> str | None:
    if (desc.startswith("Expect") and ")" in desc.split()[1:2][0:1]) or "Expecting )" in desc:
        return "a parenthesis is not closed"
    return None


def parse_statement_tokens(
    source: SourceText, tokens: list[Token], inner: list[list[Token]] | None, semi: Token | None = None
) -> Statement:
    if inner is None:
        tree = _parse_tokens(source, tokens)
    else:
        parsed = [_parse_tokens(source, t) for t in inner]
        client = any(t.text.upper() == "BEGIN" for t in tokens[:2]) or (
            tokens[0].text.upper() == "EXPLAIN" and _first_set_word(tokens) == "BEGIN"
        )
        tree = nodes.StatementSet(expressions=parsed, client_form=client or None)
        if tokens[0].text.upper() == "EXPLAIN":
            details = [
                t.text.upper()
                for t in tokens[1:]
                if t.text.upper() in ("ESTIMATED_COST", "CHANGELOG_MODE", "PLAN_ADVICE", "JSON_EXECUTION_PLAN")
            ]
            tree = nodes.Explain(this=tree, details=details or None)
        if tokens[-1].token_type != TokenType.END:
            raise SqlError(
                "Statement set is not closed", source, _span_of(tokens),
                "end the statement set with END; after its last INSERT",
            )
        leading = tokens[0].comments
        if leading:
            tree.add_comments(list(leading), prepend=True)
    return Statement(
        tree=tree,
        source=source,
        span=_span_of(tokens),
        tokens=tuple(tokens),
        trailing_comments=tuple(semi.comments) if semi is not None else (),
        terminator=semi,
    )


def _first_set_word(tokens: list[Token]) -> str:
    for t in tokens:
        if t.text.upper() in ("BEGIN", "EXECUTE"):
            return t.text.upper()
    return ""


def parse_script(text: str, path: str | None = None, *, stop_at_first: bool = False) -> ParsedScript:
    """All statements of ``text``; errors are collected per statement (parsing continues after one)."""
    source = SourceText(text, path)
    try:
        tokens = tokenize(source)
    except SqlError as err:
        return ParsedScript(source, (), (err,))
    statements: list[Statement] = []
    errors: list[SqlError] = []
    for stmt_tokens, inner, semi in split(tokens):
        if not stmt_tokens:
            continue
        try:
            statements.append(parse_statement_tokens(source, stmt_tokens, inner, semi))
        except SqlError as err:
            errors.append(err)
            if stop_at_first:
                break
    return ParsedScript(source, tuple(statements), tuple(errors))


def parse_one(text: str, path: str | None = None) -> Statement:
    """Exactly one statement; raises SqlError."""
    script = parse_script(text, path, stop_at_first=True)
    if script.errors:
        raise script.errors[0]
    if len(script.statements) != 1:
        raise SqlError(
            f"Expected one statement, found {len(script.statements)}",
            script.source,
            Span(0, len(text)),
        )
    return script.statements[0]
