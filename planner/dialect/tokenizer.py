"""Flink SQL's lexical rules on sqlglot's tokenizer: backquoted identifiers, ''-escaped strings
(a backslash is an ordinary character), ``/*+ ... */`` hints after SELECT/INSERT and after table
names, ``${name}`` variables, and Flink's type names."""

from __future__ import annotations

from typing import ClassVar

from sqlglot import TokenType
from sqlglot.tokens import Tokenizer


class FlinkTokenizer(Tokenizer):
    IDENTIFIERS = ["`"]
    QUOTES = ["'"]
    STRING_ESCAPES = ["'"]
    IDENTIFIER_ESCAPES = ["`"]
    COMMENTS = ["--", ("/*", "*/")]
    NESTED_COMMENTS = False

    # A hint may follow SELECT / INSERT (query hints) or a table name (OPTIONS hints).
    TOKENS_PRECEDING_HINT = {
        TokenType.SELECT,
        TokenType.INSERT,
        TokenType.VAR,
        TokenType.IDENTIFIER,
    }

    SINGLE_TOKENS = {
        **Tokenizer.SINGLE_TOKENS,
        "$": TokenType.PARAMETER,
    }
    # ... but within a name, `$` is one of its characters, as in Flink (`EXPR$0`, `a$b`); a name
    # that starts with `$` must be quoted here (`$` then starts a ${NAME} variable)
    VAR_SINGLE_TOKENS = {"$"}

    # sqlglot swallows the rest of a SHOW/EXECUTE/... statement as one string; Flink parses them.
    COMMANDS: ClassVar[set[TokenType]] = set()

    KEYWORDS = {
        # Flink has no CROSS APPLY: `apply` is a name (a user function's, say)
        **{word: token for word, token in Tokenizer.KEYWORDS.items() if word != "APPLY"},
        "BYTES": TokenType.VARBINARY,
        "STRING": TokenType.TEXT,
        "TIMESTAMP_LTZ": TokenType.TIMESTAMPLTZ,
        "MULTISET": TokenType.LIST,  # Flink has no LIST type: LIST stands for MULTISET here
        "ROW": TokenType.STRUCT,
        "RAW": TokenType.VAR,
        "DESC": TokenType.DESC,
        "WATERMARK": TokenType.VAR,
        "DESCRIPTOR": TokenType.VAR,
        "METADATA": TokenType.VAR,
        "VIRTUAL": TokenType.VAR,
        "ENFORCED": TokenType.VAR,
        "SYSTEM_TIME": TokenType.VAR,
        "JOBS": TokenType.VAR,
        "JOB": TokenType.VAR,
        "SAVEPOINT": TokenType.VAR,
        "DRAIN": TokenType.VAR,
        "SESSION": TokenType.VAR,  # SESSION(...) window function / TVF
        "REPLACE": TokenType.REPLACE,
        "MATCH_RECOGNIZE": TokenType.MATCH_RECOGNIZE,
    }
