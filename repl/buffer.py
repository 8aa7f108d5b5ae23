"""When the shell's buffer holds a statement to run, and the statements in it.

A statement runs at its `;`. The buffer is cut with the planner's own tokenizer and splitter, so a
`;` inside a string, a backquoted name or a comment does not end anything, and a statement set
(``EXECUTE STATEMENT SET BEGIN ... END;`` or ``BEGIN STATEMENT SET; ... END;``) runs only at the
`;` after its ``END``. A few shell words (``quit``, ``exit``, ``help``, ``clear``) also run
without a `;`, as in other SQL shells.
"""

from __future__ import annotations

from planner.errors import SqlError
from planner.source import SourceText
from planner.statements.script import Statement, parse_statement_tokens, split, tokenize

SHELL_NAME = "<shell>"  # the "file" of a statement typed at the prompt, in error messages
BARE_COMMANDS = frozenset(("quit", "exit", "help", "clear", "\\q"))


def is_complete(text: str) -> bool:
    """True when Enter should run the buffer rather than start a new line.

    That is: the buffer is empty (or only comments), it is a bare shell word, or its last
    statement is closed by a `;` (a statement set by ``END;``). An unterminated string, name or
    comment is never complete: the user is still typing it.
    """
    stripped = text.strip()
    if not stripped:
        return True
    if stripped.lower() in BARE_COMMANDS:
        return True
    try:
        tokens = tokenize(SourceText(text))
    except SqlError as err:
        if err.message.startswith("Unterminated"):
            return False
        return stripped.endswith(";")  # an invalid character: run it to show the error
    if not tokens:
        return True  # comments only
    pieces = split(tokens)
    if not pieces:
        return True  # only `;`
    _tokens, _inner, semi = pieces[-1]
    return semi is not None


def statements(text: str, path: str | None = SHELL_NAME) -> list[Statement | SqlError]:
    """The statements of ``text`` in order; a statement that does not parse is its SqlError."""
    if text.strip().lower() in BARE_COMMANDS:
        word = text.strip().lower()
        text = {"\\q": "quit"}.get(word, word) + ";"
    source = SourceText(text, path)
    try:
        tokens = tokenize(source)
    except SqlError as err:
        return [err]
    out: list[Statement | SqlError] = []
    for stmt_tokens, inner, semi in split(tokens):
        if not stmt_tokens:
            continue
        try:
            out.append(parse_statement_tokens(source, stmt_tokens, inner, semi))
        except SqlError as err:
            out.append(err)
    return out
