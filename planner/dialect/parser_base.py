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
        raise ParseError(message)  # a parser made with another error level: still one error, now

    def _parse_dotted_key(self) -> exp.Expr | None:
        """An unquoted option key (``state.backend.type``, ``sql-client.execution.result-mode``)."""
        parts = []
        while not self._at_end() and self._curr.token_type not in (TokenType.EQ, TokenType.R_PAREN):
            if self._curr.token_type == TokenType.DOT:
                parts.append(".")
            elif self._curr.token_type == TokenType.DASH:
                parts.append("-")
            else:
                parts.append(self._curr.text)
            self._advance()
        return exp.Literal.string("".join(parts)) if parts else None

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
