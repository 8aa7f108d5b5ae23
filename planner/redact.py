"""Statement text with secret option values masked, for what is kept on disk as typed (the shell's
history). A secret is an option whose key ``catalog.secrets.is_secret_key`` names (``password``,
``sasl.jaas.config``, ...). Masked: the value of every ``'key' = 'value'`` pair with such a key,
wherever it is (``WITH (...)``, ``ALTER TABLE ... SET (...)``, ``/*+ OPTIONS(...) */``,
``SET 'key' = 'value'``, a commented-out option), and the rest of a ``SET key = value`` written
without quotes.

Text typed at a prompt need not parse, so the quoted pairs are found in the text itself (a
string may be unterminated); the unquoted SET form is found with the dialect's tokenizer."""

from __future__ import annotations

import re

from sqlglot import TokenType
from sqlglot.errors import TokenError

from catalog.secrets import MASK, is_secret_key
from planner.dialect import Flink

# 'key' = 'value' ('' inside either is a quote; the value may run to the end unterminated)
_PAIR = re.compile(r"'((?:[^']|'')*)'(\s*=\s*)'(?:[^']|'')*'?")


def _mask_pairs(text: str) -> str:
    return _PAIR.sub(lambda m: f"'{m.group(1)}'{m.group(2)}'{MASK}'" if is_secret_key(m.group(1).replace("''", "'")) else m.group(0), text)


def _unquoted_set_values(sql: str) -> list[tuple[int, int]]:
    """Spans of the values of ``SET key = value`` (unquoted) with a secret key."""
    try:
        tokens = Flink().tokenizer().tokenize(sql)
    except TokenError:
        return []
    spans = []
    starts = [0] + [i + 1 for i, t in enumerate(tokens) if t.token_type == TokenType.SEMICOLON]
    for first in starts:
        if first >= len(tokens) or tokens[first].token_type != TokenType.SET:
            continue
        eq = next((i for i in range(first + 1, len(tokens)) if tokens[i].token_type in (TokenType.EQ, TokenType.SEMICOLON)), None)
        if eq is None or tokens[eq].token_type != TokenType.EQ or eq == first + 1 or eq + 1 >= len(tokens):
            continue
        key = sql[tokens[first + 1].start : tokens[eq].start].strip()  # a dotted, dashed key is several tokens
        value = tokens[eq + 1]
        if key.startswith("'") or value.token_type == TokenType.STRING or not is_secret_key(key):
            continue
        end = next((t.start for t in tokens[eq:] if t.token_type == TokenType.SEMICOLON), len(sql))
        spans.append((value.start, len(sql[:end].rstrip())))
    return spans


def mask_secrets(sql: str) -> str:
    """``sql`` with the values of secret options replaced by ``'******'`` (see the module)."""
    for start, end in sorted(_unquoted_set_values(sql), reverse=True):
        sql = sql[:start] + MASK + sql[end:]
    return _mask_pairs(sql)
