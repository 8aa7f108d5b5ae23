"""Statement text with secret option values masked, for what is kept on disk as typed (the shell's
history). A secret is an option whose key ``catalog.secrets.is_secret_key`` names (``password``,
``sasl.jaas.config``, ...). Masked: the value of every ``'key' = 'value'`` pair with such a key,
wherever it is (``WITH (...)``, ``ALTER TABLE ... SET (...)``, ``/*+ OPTIONS(...) */``,
``SET 'key' = 'value'``), and the rest of a ``SET key = value`` written without quotes.

A lexical scan, not a parse: it works on any text typed at the prompt, even text that does not
parse (an unterminated string runs to the end). In comments, every ``'key' = 'value'`` with a
secret key is masked too (a commented-out option)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalog.secrets import MASK, is_secret_key

_WORD = re.compile(r"[A-Za-z0-9_$.\-]+")


@dataclass(frozen=True)
class _Tok:
    kind: str  # string | word | ident | punct | comment
    start: int
    end: int  # exclusive
    text: str  # a string's value (quotes removed, '' as '), a word's text, the punctuation


def _scan(sql: str) -> list[_Tok]:  # noqa: C901
    out, i, n = [], 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch.isspace():
            i += 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            out.append(_Tok("comment", i + 2, end, sql[i + 2 : end]))
            i = end
        elif sql.startswith("/*", i) and not sql.startswith("/*+", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end
            out.append(_Tok("comment", i + 2, end, sql[i + 2 : end]))
            i = end + 2
        elif sql.startswith("/*+", i):  # a hint: its inside is scanned like the rest
            i += 3
        elif ch in "'`":
            j, parts = i + 1, []
            while j < n:
                if sql[j] == ch:
                    if j + 1 < n and sql[j + 1] == ch:
                        parts.append(ch)
                        j += 2
                        continue
                    break
                parts.append(sql[j])
                j += 1
            out.append(_Tok("string" if ch == "'" else "ident", i, min(j + 1, n), "".join(parts)))
            i = j + 1
        elif m := _WORD.match(sql, i):
            out.append(_Tok("word", i, m.end(), m.group()))
            i = m.end()
        else:
            out.append(_Tok("punct", i, i + 1, ch))
            i += 1
    return out


_PAIR = re.compile(r"'((?:[^']|'')*)'(\s*=\s*)'(?:[^']|'')*'?")


def _mask_loosely(text: str) -> str:
    """In a comment: every 'key' = 'value' with a secret key, tried at each position (prose has
    stray apostrophes that a scan would take for strings)."""
    return _PAIR.sub(lambda m: f"'{m.group(1)}'{m.group(2)}'{MASK}'" if is_secret_key(m.group(1)) else m.group(0), text)


def mask_secrets(sql: str) -> str:
    """``sql`` with the values of secret options replaced by ``'******'`` (see the module)."""
    spans: list[tuple[int, int, str]] = []
    toks = []
    for tok in _scan(sql):
        if tok.kind != "comment":
            toks.append(tok)
        elif (masked := _mask_loosely(tok.text)) != tok.text:  # a commented-out option is masked too
            spans.append((tok.start, tok.end, masked))
    first = 0  # index of the first token of the current statement
    for i, tok in enumerate(toks):
        if tok.kind == "punct" and tok.text == ";":
            first = i + 1
            continue
        if not (tok.kind == "punct" and tok.text == "=") or i == 0:
            continue
        key, value = toks[i - 1], toks[i + 1] if i + 1 < len(toks) else None
        if key.kind == "punct" or not is_secret_key(key.text) or value is None:
            continue
        is_set = i - 2 == first and toks[first].kind == "word" and toks[first].text.upper() == "SET"
        if is_set and value.kind != "string":  # SET key = value: the value is the rest of the statement
            end = next((t.start for t in toks[i + 1 :] if t.kind == "punct" and t.text == ";"), len(sql))
            spans.append((value.start, len(sql[:end].rstrip()), MASK))
        elif value.kind == "string" and (key.kind == "string" or is_set):
            spans.append((value.start, value.end, f"'{MASK}'"))
    for start, end, mask in sorted(spans, reverse=True):
        sql = sql[:start] + mask + sql[end:]
    return sql
