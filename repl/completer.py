"""Context-aware completion for the shell.

What is offered depends on where the cursor is, worked out with the planner's tokenizer (never by
regular expressions over SQL): statement keywords at the start; tables and views after FROM, JOIN,
INTO, TABLE, DESCRIBE, SHOW CREATE TABLE; window table functions in ``FROM TABLE(``; the columns of
``alias.``; connector option keys (and their values) inside ``WITH (...)``; setting keys and
values after SET / RESET; job ids after DESCRIBE JOB / STOP JOB / SHOW STATE; elsewhere the columns of the
tables named in the statement's FROM and JOIN, functions and keywords.

Matching is fuzzy-ish: prefix matches first, then a match at the start of a word part
(``mode`` finds ``sql-client.execution.result-mode``), then substrings, then subsequences.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from sqlglot import Token, TokenType

from catalog import Catalog
from catalog.options import CONNECTORS, FORMATS, find_spec, option_keys
from planner.errors import SqlError
from planner.source import SourceText
from planner.statements.script import tokenize
from repl.vocabulary import BUILTIN_FUNCTIONS, COMMON_KEYWORDS, KEYWORDS, WINDOW_TVFS

log = logging.getLogger("sqlengine.repl.completer")

STATEMENT_STARTS = (
    "SELECT", "INSERT INTO", "CREATE TABLE", "CREATE VIEW", "CREATE TEMPORARY VIEW", "CREATE FUNCTION",
    "DROP TABLE", "DROP VIEW", "ALTER TABLE", "EXECUTE STATEMENT SET BEGIN", "BEGIN STATEMENT SET",
    "EXPLAIN", "SET", "RESET", "SHOW", "DESCRIBE", "DESCRIBE JOB", "STOP JOB", "USE", "HELP", "QUIT",
    "CLEAR", "WITH",
)
SHOW_WHAT = (
    "TABLES", "VIEWS", "FUNCTIONS", "USER FUNCTIONS", "JOBS", "STATE", "CREATE TABLE", "CREATE VIEW",
    "COLUMNS FROM", "CATALOGS", "DATABASES", "MODULES", "CURRENT CATALOG", "CURRENT DATABASE",
)
_STATEMENT_WORDS = {w.split()[0] for w in STATEMENT_STARTS} - {"SELECT", "WITH", "SET"}
TABLE_AFTER = {"FROM", "JOIN", "INTO", "TABLE", "DESCRIBE", "DESC", "UPDATE", "LIKE"}
WINDOW_COLUMNS = ("window_start", "window_end", "window_time")


@dataclass(frozen=True)
class Candidate:
    text: str  # what is inserted
    kind: str  # keyword, table, view, column, function, option, value, setting, job
    meta: str = ""
    display: str | None = None
    priority: int = 5  # among equal matches: lower first


@dataclass
class Context:
    """Where the cursor is: the word being typed and what may go there."""

    word: str
    kinds: set[str] = field(default_factory=set)
    qualifier: str | None = None  # `x.` before the word
    in_string: bool = False
    string_key: str | None = None  # the option or setting whose value is typed
    close_quote: bool = False
    fields: tuple[str, ...] = ()  # columns declared by the CREATE TABLE being typed


# -- matching ----------------------------------------------------------------------------------


def match_rank(word: str, candidate: str) -> tuple[int, int] | None:
    """How well ``word`` matches ``candidate`` (lower is better), or None."""
    if not word:
        return (0, 0)
    w, c = word.lower(), candidate.lower()
    if c.startswith(w):
        return (0, len(c))
    parts = re.split(r"[._\- #]", c)
    for i, part in enumerate(parts):
        if part.startswith(w):
            return (1, i)
    pos = c.find(w)
    if pos >= 0:
        return (2, pos)
    it = iter(c)
    if len(w) >= 3 and all(ch in it for ch in w):  # a subsequence: "rsm" finds "result-mode"
        return (3, len(c))
    return None


# -- tokens around the cursor ------------------------------------------------------------------


def _tokens(text: str) -> tuple[list[Token], str | None, str | None]:
    """Tokens of ``text``; when it ends inside a string or a backquoted name, the tokens before it
    and what has been typed inside (string, quoted name)."""
    try:
        return tokenize(SourceText(text)), None, None
    except SqlError as err:
        start = err.span.start
        inside = text[start + 1 :]
        try:
            before = tokenize(SourceText(text[:start]))
        except SqlError:
            before = []
        if err.message.startswith("Unterminated string"):
            return before, inside, None
        if err.message.startswith("Unterminated quoted identifier"):
            return before, None, inside
        raise


def _statement_tokens(tokens: list[Token]) -> list[Token]:
    """The tokens of the statement the cursor is in (after the last `;`, inside a statement set)."""
    last = max((i for i, t in enumerate(tokens) if t.token_type == TokenType.SEMICOLON), default=-1)
    cur = tokens[last + 1 :]
    words = [t.text.upper() for t in cur[:4]]
    if words == ["EXECUTE", "STATEMENT", "SET", "BEGIN"]:
        cur = cur[4:]
    return cur


def _up(tok: Token | None) -> str:
    return tok.text.upper() if tok is not None and tok.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else ""


def _open_paren(prev: list[Token]) -> int | None:
    """Index of the innermost `(` still open at the cursor."""
    depth = 0
    for i in range(len(prev) - 1, -1, -1):
        tt = prev[i].token_type
        if tt == TokenType.R_PAREN:
            depth += 1
        elif tt == TokenType.L_PAREN:
            if depth == 0:
                return i
            depth -= 1
    return None


def _declared_columns(prev: list[Token]) -> tuple[str, ...]:
    """The column names of ``CREATE TABLE t (a INT, b STRING, ...)`` (for ``fields.#.kind``)."""
    if not prev or _up(prev[0]) != "CREATE":
        return ()
    start = next((i for i, t in enumerate(prev) if t.token_type == TokenType.L_PAREN), None)
    if start is None:
        return ()
    out, depth = [], 0
    for i in range(start, len(prev)):
        tt = prev[i].token_type
        if tt == TokenType.L_PAREN:
            depth += 1
        elif tt == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and tt in (TokenType.L_PAREN, TokenType.COMMA) and i + 1 < len(prev):
            nxt = prev[i + 1]
            if nxt.token_type in (TokenType.VAR, TokenType.IDENTIFIER) or (nxt.text.isidentifier() and _up(nxt) not in ("WATERMARK", "PRIMARY", "CONSTRAINT")):
                out.append(nxt.text)
    return tuple(out)


def _with_options(prev: list[Token], paren: int) -> dict[str, str]:
    """The 'key' = 'value' pairs already written inside WITH (...)."""
    out = {}
    toks = prev[paren + 1 :]
    for i in range(len(toks) - 2):
        if toks[i].token_type == TokenType.STRING and toks[i + 1].token_type == TokenType.EQ and toks[i + 2].token_type == TokenType.STRING:
            out[toks[i].text] = toks[i + 2].text
    return out


def context_at(text: str, cursor: int) -> Context:
    before = text[:cursor]
    tokens, in_string, in_quoted = _tokens(before)
    after = text[cursor : cursor + 1]
    if in_string is not None:
        ctx = Context(in_string, in_string=True, close_quote=after != "'")
        prev = _statement_tokens(tokens)
        _string_context(ctx, prev)
        return ctx
    if in_quoted is not None:
        return Context(in_quoted, {"table", "view", "column"})
    m = re.search(r"[\w$]*$", before)
    word = m.group(0) if m else ""
    prev = _statement_tokens(tokens)
    if word and prev and prev[-1].end == len(before) - 1:
        prev = prev[:-1]  # the word being typed
    ctx = Context(word)
    if prev and prev[-1].token_type == TokenType.DOT and len(prev) >= 2:
        ctx.qualifier = prev[-2].text
        ctx.kinds = {"column"}
        return ctx
    _word_context(ctx, prev)
    return ctx


def _string_context(ctx: Context, prev: list[Token]) -> None:
    first = _up(prev[0]) if prev else ""
    last = prev[-1] if prev else None
    if first in ("SET", "RESET") and len(prev) == 1:
        ctx.kinds = {"setting"}
        return
    if first == "SET" and len(prev) == 3 and last is not None and last.token_type == TokenType.EQ:
        ctx.kinds, ctx.string_key = {"setting-value"}, prev[1].text
        return
    if last is not None and _up(last) in ("JOB", "STATE") and first in ("DESCRIBE", "DESC", "STOP", "SHOW"):
        ctx.kinds = {"job"}
        return
    paren = _open_paren(prev)
    if paren is not None and paren > 0 and _up(prev[paren - 1]) == "WITH":
        options = _with_options(prev, paren)
        ctx.string_key = options.get("connector", "") + "|" + options.get("format", "")
        ctx.fields = _declared_columns(prev)
        if last is not None and last.token_type in (TokenType.L_PAREN, TokenType.COMMA):
            ctx.kinds = {"option"}
        elif last is not None and last.token_type == TokenType.EQ and len(prev) >= 2 and prev[-2].token_type == TokenType.STRING:
            ctx.kinds = {"option-value"}
            ctx.string_key += "|" + prev[-2].text


def _word_context(ctx: Context, prev: list[Token]) -> None:
    if not prev:
        ctx.kinds = {"statement"}
        return
    first, last = _up(prev[0]), _up(prev[-1])
    last2 = " ".join(_up(t) for t in prev[-2:])
    if first in ("SET", "RESET") and len(prev) == 1:
        ctx.kinds = {"setting-quoted"}
        return
    if (last == "JOB" and first in ("DESCRIBE", "DESC", "STOP")) or (last == "STATE" and first == "SHOW"):
        ctx.kinds = {"job-quoted"}
        return
    if first == "SHOW" and len(prev) == 1:
        ctx.kinds = {"show"}
        return
    if first == "DESCRIBE" and len(prev) == 1:
        ctx.kinds = {"table", "view", "keyword-job"}
        return
    if last == "(" and len(prev) >= 2 and _up(prev[-2]) == "TABLE":
        ctx.kinds = {"tvf"}
        return
    if last in TABLE_AFTER or last2 in ("CREATE TABLE", "CREATE VIEW", "COLUMNS FROM", "COLUMNS IN"):
        if first == "CREATE" and last in ("TABLE", "VIEW"):
            ctx.kinds = set()  # a new name
            return
        ctx.kinds = {"table", "view"}
        if last == "FROM":
            ctx.kinds.add("keyword-table")
        return
    paren = _open_paren(prev)
    if paren is not None and paren > 0 and _up(prev[paren - 1]) == "WITH" and prev[-1].token_type in (TokenType.L_PAREN, TokenType.COMMA):
        options = _with_options(prev, paren)
        ctx.kinds = {"option-quoted"}
        ctx.string_key = options.get("connector", "") + "|" + options.get("format", "")
        ctx.fields = _declared_columns(prev)
        return
    ctx.kinds = {"column", "function", "keyword", "table", "view"}


# -- tables in scope ---------------------------------------------------------------------------


def tables_in_statement(text: str, cursor: int) -> tuple[dict[str, str], bool]:
    """Tables and views the statement around ``cursor`` reads ({alias or name: name}), and whether
    it uses a window table function (whose rows carry window_start/window_end/window_time)."""
    try:
        tokens = tokenize(SourceText(text))
    except SqlError:
        tokens, _s, _q = _tokens(text[:cursor])
    start, end = 0, len(tokens)
    for i, t in enumerate(tokens):
        if t.token_type == TokenType.SEMICOLON:
            if t.start < cursor:
                start = i + 1
            elif end == len(tokens):
                end = i
    toks = tokens[start:end]
    parsed = _tables_from_parse(text[toks[0].start : toks[-1].end + 1]) if toks else {}
    found: dict[str, str] = dict(parsed)
    windowed = False
    for i, t in enumerate(toks):
        up = _up(t)
        if up in WINDOW_TVFS and i + 1 < len(toks) and toks[i + 1].token_type == TokenType.L_PAREN:
            windowed = True
        if parsed or up not in ("FROM", "JOIN", "TABLE", "INTO") or i + 1 >= len(toks):
            continue  # a statement that parses has given its tables already
        name_tok = toks[i + 1]
        if name_tok.token_type not in (TokenType.VAR, TokenType.IDENTIFIER) and not (
            name_tok.text.isidentifier() and name_tok.text.upper() not in KEYWORDS
        ):
            continue
        j = i + 2
        while j + 1 < len(toks) and toks[j].token_type == TokenType.DOT:  # catalog.db.table
            name_tok = toks[j + 1]
            j += 2
        name = name_tok.text
        found.setdefault(name, name)
        k = j + 1 if j < len(toks) and toks[j].token_type == TokenType.ALIAS else j
        if k < len(toks) and toks[k].token_type in (TokenType.VAR, TokenType.IDENTIFIER) and toks[k].text.upper() not in KEYWORDS:
            found[toks[k].text] = name
    return found, windowed


def _tables_from_parse(statement: str) -> dict[str, str]:
    """Tables (and aliases) of a statement that parses: this sees comma joins, subqueries and CTEs
    (a CTE's name is not a table). Empty when the statement does not parse yet; the token scan
    of ``tables_in_statement`` covers that case."""
    try:
        import sqlglot
        from sqlglot import exp

        from planner.dialect import Flink

        tree = sqlglot.parse_one(statement, dialect=Flink)
    except Exception:
        return {}
    if tree is None:
        return {}
    ctes = {c.alias for c in tree.find_all(exp.CTE)}
    found: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        if t.name and t.name not in ctes:
            found.setdefault(t.name, t.name)
            if t.alias:
                found[t.alias] = t.name
    return found


# -- the completer -----------------------------------------------------------------------------


class SqlCompleter(Completer):
    def __init__(
        self,
        catalog: Catalog,
        settings: Callable[[], dict[str, tuple[str, ...] | None]],
        job_ids: Callable[[], list[str]] = list,
    ):
        self.catalog = catalog
        self.settings = settings
        self.job_ids = job_ids
        self._view_columns: dict[tuple[str, str], list[str]] = {}

    # catalog lookups (best effort: the completer never raises)
    def _names(self, kind: str) -> list[str]:
        try:
            return self.catalog.names(kind)
        except Exception:
            log.debug("catalog names", exc_info=True)
            return []

    def columns_of(self, name: str) -> list[str]:
        try:
            obj = self.catalog.get_relation(name)
        except Exception:
            return []
        if obj is None:
            return []
        if hasattr(obj, "columns"):
            return [c.name for c in obj.columns]
        key = (name, obj.query)
        if key not in self._view_columns:
            try:
                from sqlglot import exp

                from planner.binder import Binder
                from planner.dialect import Flink

                plan = Binder(self.catalog).plan_query(exp.maybe_parse(obj.query, dialect=Flink))
                self._view_columns[key] = [f.name for f in plan.fields]
            except Exception:
                self._view_columns[key] = []
        return self._view_columns[key]

    def candidates(self, ctx: Context, text: str, cursor: int) -> Iterator[Candidate]:
        kinds = ctx.kinds
        lower = bool(ctx.word) and ctx.word.islower()

        def kw(word: str, priority: int = 4, meta: str = "keyword") -> Candidate:
            return Candidate(word.lower() if lower else word, "keyword", meta, priority=priority)

        if "statement" in kinds:
            yield from (kw(w, 1) for w in STATEMENT_STARTS)
        if "show" in kinds:
            yield from (kw(w, 1) for w in SHOW_WHAT)
        if "keyword-job" in kinds:
            yield kw("JOB", 3)
        if "keyword-table" in kinds:
            yield kw("TABLE(", 3, "window table function")
        if "tvf" in kinds:
            yield from (Candidate(w, "function", "window table function", priority=1) for w in WINDOW_TVFS)
        if "table" in kinds:
            yield from (Candidate(n, "table", "table", priority=2) for n in self._names("table"))
        if "view" in kinds:
            yield from (Candidate(n, "view", "view", priority=2) for n in self._names("view"))
        if "column" in kinds:
            yield from self._columns(ctx, text, cursor)
        if "function" in kinds:
            yield from (Candidate(f.lower() if lower else f, "function", "function", priority=3) for f in BUILTIN_FUNCTIONS)
            yield from (Candidate(n, "function", "user function", priority=3) for n in self._names("function"))
        if "keyword" in kinds:
            common = set(COMMON_KEYWORDS)
            yield from (kw(w, 3) for w in COMMON_KEYWORDS if w.split()[0] not in _STATEMENT_WORDS)
            yield from (kw(w, 6) for w in sorted(KEYWORDS) if w not in common)
        if kinds & {"setting", "setting-quoted"}:
            quote = "setting-quoted" in kinds
            for key in sorted(self.settings()):
                text_ = f"'{key}'" if quote else key + ("'" if ctx.close_quote else "")
                yield Candidate(text_, "setting", "setting", display=key, priority=1)
        if "setting-value" in kinds:
            for value in self.settings().get(ctx.string_key or "") or ():
                yield Candidate(value + ("'" if ctx.close_quote else ""), "value", "value", display=value, priority=1)
        if kinds & {"job", "job-quoted"}:
            for job_id in self.job_ids():
                yield Candidate(f"'{job_id}'" if "job-quoted" in kinds else job_id + ("'" if ctx.close_quote else ""), "job", "job", display=job_id, priority=1)
        if kinds & {"option", "option-quoted"}:
            yield from self._options(ctx, "option-quoted" in kinds)
        if "option-value" in kinds:
            yield from self._option_values(ctx)

    def _columns(self, ctx: Context, text: str, cursor: int) -> Iterator[Candidate]:
        tables, windowed = tables_in_statement(text, cursor)
        if ctx.qualifier is not None:
            name = tables.get(ctx.qualifier, ctx.qualifier)
            for col in self.columns_of(name):
                yield Candidate(col, "column", f"column of {name}", priority=0)
            if windowed:
                yield from (Candidate(c, "column", "window column", priority=1) for c in WINDOW_COLUMNS)
            return
        seen = set()
        for name in dict.fromkeys(tables.values()):
            for col in self.columns_of(name):
                if col not in seen:
                    seen.add(col)
                    yield Candidate(col, "column", f"column of {name}", priority=0)
        if windowed:
            yield from (Candidate(c, "column", "window column", priority=1) for c in WINDOW_COLUMNS if c not in seen)

    def _options(self, ctx: Context, quote: bool) -> Iterator[Candidate]:
        connector, _, fmt = (ctx.string_key or "|").partition("|")
        if connector in CONNECTORS:
            keys = option_keys(connector, fmt or None, ctx.fields)
        else:
            keys = list(dict.fromkeys(k for c in CONNECTORS for k in option_keys(c)))
        for key in keys:
            spec = find_spec(connector or "filesystem", key, fmt or None)
            meta = spec[0].description if spec else ""
            text_ = f"'{key}'" if quote else key + ("'" if ctx.close_quote else "")
            yield Candidate(text_, "option", meta[:60], display=key, priority=0 if key == "connector" else 1)

    def _option_values(self, ctx: Context) -> Iterator[Candidate]:
        connector, fmt, key = (ctx.string_key or "||").split("|", 2)
        tail = "'" if ctx.close_quote else ""
        if key == "connector":
            values: Iterable[tuple[str, str]] = ((c.name, c.description[:60]) for c in CONNECTORS.values())
        elif key in ("format", "key.format", "value.format"):
            spec_formats = CONNECTORS[connector].formats if connector in CONNECTORS else ()
            values = ((f, "format") for f in (spec_formats or FORMATS))
        else:
            spec = find_spec(connector, key, fmt or None) if connector else None
            values = ((v, "value") for v in (spec[0].choices if spec else ()))
        for value, meta in values:
            yield Candidate(value + tail, "value", meta, display=value, priority=1)

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        try:
            ctx = context_at(document.text, document.cursor_position)
            ranked = []
            for i, cand in enumerate(self.candidates(ctx, document.text, document.cursor_position)):
                rank = match_rank(ctx.word, cand.display or cand.text)
                if rank is not None:
                    # prefix matches: shorter words first within a priority (FROM before FROM_BASE64)
                    ranked.append((rank[0], cand.priority, rank[1], i, cand))
        except Exception:  # completion is help, never a failure
            log.debug("completion failed", exc_info=True)
            return
        ranked.sort(key=lambda r: r[:4])
        seen = set()
        for *_key, cand in ranked:
            label = (cand.display or cand.text).lower()
            if label in seen:  # PROCTIME is a keyword and a function: offered once
                continue
            seen.add(label)
            yield Completion(cand.text, start_position=-len(ctx.word), display=cand.display, display_meta=cand.meta)
            if len(seen) >= 200:
                return
