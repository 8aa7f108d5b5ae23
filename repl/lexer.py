"""A pygments lexer for our Flink SQL dialect: keywords (from the planner's reserved list and the
client statements), built-in functions, types, strings ('it''s'), backquoted names, comments,
hints (``/*+ STATE_TTL(...) */``), numbers, ``${variables}`` and operators."""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

from repl.vocabulary import BUILTIN_FUNCTIONS, KEYWORDS, TYPES


class FlinkSqlLexer(RegexLexer):
    name = "Flink SQL (sqlengine)"
    aliases = ["flinksql", "sqlengine"]
    filenames = ["*.sql"]
    flags = re.IGNORECASE | re.MULTILINE

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"--.*?$", Comment.Single),
            (r"/\*\+", Comment.Special, "hint"),
            (r"/\*", Comment.Multiline, "comment"),
            (r"'", String.Single, "string"),
            (r"`", Name.Quoted, "quoted"),
            (r"\$\{[^}]*\}", Name.Variable),
            (r"(?<![\w.])\d+\.\d*(e[+-]?\d+)?|(?<![\w.])\.\d+(e[+-]?\d+)?", Number.Float),
            (r"(?<![\w.])\d+(e[+-]?\d+)?(?![\w])", Number.Integer),
            # a name followed by "(" is a call: a known function, or a user's
            (words(BUILTIN_FUNCTIONS, prefix=r"(?<![\w.`])", suffix=r"(?=\s*\()"), Name.Builtin),
            (words(TYPES, prefix=r"(?<![\w.`])", suffix=r"\b"), Keyword.Type),
            (words(tuple(sorted(KEYWORDS, key=len, reverse=True)), prefix=r"(?<![\w.`])", suffix=r"\b"), Keyword),
            (r"([a-z_][\w$]*)(\s*)(?=\()", bygroups(Name.Function, Whitespace)),  # type: ignore[no-untyped-call]  # types-Pygments leaves bygroups unannotated
            (r"[a-z_][\w$]*", Name),
            (r"<>|!=|>=|<=|\|\||[-+*/%=<>]", Operator),
            (r"[;,.()\[\]{}]", Punctuation),
            (r".", Text),
        ],
        "string": [
            (r"[^']+", String.Single),
            (r"''", String.Escape),
            (r"'", String.Single, "#pop"),
        ],
        "quoted": [
            (r"[^`]+", Name.Quoted),
            (r"``", String.Escape),
            (r"`", Name.Quoted, "#pop"),
        ],
        "comment": [
            (r"[^*]+", Comment.Multiline),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"\*", Comment.Multiline),
        ],
        "hint": [
            (r"[^*]+", Comment.Special),
            (r"\*/", Comment.Special, "#pop"),
            (r"\*", Comment.Special),
        ],
    }
