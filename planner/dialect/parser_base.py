"""What the Flink parser and its mixins (DDL, client statements, MATCH_RECOGNIZE) share: the
error every syntax problem raises, and the checks for a statement's end and a call's ``)``.

The mixins are typed against sqlglot's parser (``_Parser``), whose methods they call; at run time
they sit in front of it in ``FlinkParser``'s bases."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn, TypeVar

from sqlglot import Token, TokenType, exp
from sqlglot.errors import ParseError

if TYPE_CHECKING:
    from sqlglot.parsers.base import BaseParser as _Parser
else:
    _Parser = object

R = TypeVar("R")


class ParserBase(_Parser):
    def _at_end(self) -> bool:
        return self._index >= len(self._tokens)

    def raise_error(self, message: str, token: Token | None = None) -> NoReturn:
        # keep the offending token on the error: positions come from its start/end offsets
        # None means "at the end of the statement" (sqlglot would name the previous token)
        tok = token if token is not None else (self._curr if self._index < len(self._tokens) else None)
        try:
            if token is not None:
                super().raise_error(message, token)
            else:
                super().raise_error(message)
        except ParseError as err:
            err.token = tok  # type: ignore[attr-defined]  # ParseError keeps no token; script.py reads it
            raise
        # a parser made with another error level: still one error, now (with its description, which
        # sqlglot's parse_into reads)
        raise ParseError.new(message, description=message)

    # what a comma-separated list holds, for the error at an empty item ("the select list")
    _csv_what: str | None = None

    def _parse_csv(self, parse_method: Callable[[], R | None], sep: TokenType = TokenType.COMMA) -> list[R]:
        """sqlglot's comma list, without its tolerance of empty items: `a,, b`, `(x, )`, `, a`
        and a trailing `,` are syntax errors in Flink, at the token where an item was expected."""
        what, self._csv_what = self._csv_what, None  # a nested list is not the select list
        try:
            item = parse_method()
            items = [item] if item is not None else []
            while self._match(sep):
                separator = self._prev
                if item is None:
                    self._empty_item(separator, separator, what)
                if isinstance(item, exp.Expr):
                    self._add_comments(item)
                item = parse_method()
                if item is None:
                    self._empty_item(self._curr if not self._at_end() else None, separator, what)
                items.append(item)
            return items
        finally:
            self._csv_what = what

    def _empty_item(self, token: Token | None, separator: Token, what: str | None) -> NoReturn:
        # `a,, b`: at the second `,` (where Flink's parser stops); `a, FROM t`, `(x, )` and a
        # trailing `,`: at the `,` that has nothing after it
        where = f"in {what}" if what else "in a comma-separated list"
        at = token if token is not None and token.token_type == separator.token_type else separator
        self.raise_error(f"Unexpected `{at.text}`: an empty item {where}", at)

    def _parse_continued_string(self) -> exp.Literal:
        """A string literal continued by the ones right after it: `'ab' 'c'` is 'abc' (standard
        SQL). Flink allows it in expressions, options and SET/RESET, not where its grammar takes
        one quoted string (COMMENT, SHOW ... LIKE, a function's class name)."""
        first = self._curr
        parts = []
        while self._match(TokenType.STRING):
            parts.append(self._prev.text)
        literal = exp.Literal.string("".join(parts))
        literal.update_positions(start=first.start, end=self._prev.end, line=first.line, col=first.col)
        return literal

    def _parse_quoted_option(self, what: str, form: str) -> exp.Expr:
        """An option's key or value: a string literal (Flink takes nothing else), or a ${variable}."""
        if self._curr.token_type == TokenType.STRING:
            return self._parse_continued_string()
        if self._curr.token_type == TokenType.PARAMETER:
            parameter = self._parse_primary()
            if parameter is not None:
                return parameter
        if self._at_end():
            self.raise_error(f"Expected the option's {what}, a quoted string: {form}")
        self.raise_error(f"Expected the option's {what} as a quoted string, found `{self._curr.text}`: {form}")

    def _expect(self, value: R | None, message: str) -> R:
        """``value``, or the syntax error ``message`` where it was missing."""
        if value is None:
            self.raise_error(message)
        return value

    def _closed(self, fn: Callable[[ParserBase], R]) -> R:
        result = fn(self)
        self._require_r_paren()
        return result

    def _require_r_paren(self) -> None:
        # sqlglot consumes the ')' of a FUNCTION_PARSERS call only if present; Flink requires it
        if self._curr is None or self._curr.token_type != TokenType.R_PAREN:
            self.raise_error("Expecting )")

    def _match_r_paren_or(self, token_type: TokenType, message: str) -> None:
        if not self._match(token_type):
            self.raise_error(message)
