"""Linting .sql files: every statement of every file is parsed, bound and analysed against an
in-memory catalog (DDL from the same file, after the ``--init`` files); syntax and binding errors
become findings too, so one bad statement does not stop the others.

Lint reads only the .sql files named: it never opens a catalog on disk, starts a JVM, reads a
data path or connects to anything a table names."""

from __future__ import annotations

import logging
import multiprocessing
import os
from dataclasses import dataclass, replace
from pathlib import Path

from sqlglot import Token

from catalog import Catalog
from planner.diagnostics import Category, Diagnostic, Severity
from planner.errors import SqlError
from planner.lint.config import ConfigError, LintConfig
from planner.lint.noqa import suppressed, suppressions
from planner.lint.options import option_findings
from planner.lint.prefix import SETUP, PrefixCache, restore, snapshot
from planner.rules.base import REWRITES_SETTING
from planner.source import SourceText, Span
from planner.statements.script import Statement, parse_script, parse_statement_tokens, split, tokenize
from planner.statements.session import PlannerSession

ERROR_CATEGORY = {"E001": Category.SYNTAX, "E005": Category.SYNTAX, "E999": Category.INTERNAL}
log = logging.getLogger("sqlengine.lint")


@dataclass(frozen=True)
class LintResult:
    diagnostics: tuple[Diagnostic, ...]
    files: int
    statements: int
    config: LintConfig

    @property
    def invalid_sql(self) -> bool:
        return any(d.code.startswith("E") for d in self.diagnostics)

    @property
    def exit_code(self) -> int:
        """2 for invalid SQL, 1 when a finding reaches fail-on, else 0."""
        if self.invalid_sql:
            return 2
        return 1 if any(self.config.fails(d.severity) for d in self.diagnostics) else 0

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Severity}
        for d in self.diagnostics:
            out[d.severity.value] += 1
        return out


def error_diagnostic(err: SqlError) -> Diagnostic:
    # the planner reports an undefined ${NAME} as an unknown name; lint gives it its own code
    code = "E004" if err.message.startswith("Undefined variable") else err.code
    hint = err.hint
    if code == "E004":
        hint = (hint or "") + " (or [tool.sqlengine.lint] define = {...})"
    return Diagnostic(
        code=code,
        severity=Severity.ERROR,
        category=ERROR_CATEGORY.get(err.code, Category.BINDING),
        message=err.message,
        hint=hint,
        source=err.source,
        span=err.span,
    )


def internal_diagnostic(err: Exception, source: SourceText, span: Span) -> Diagnostic:
    """A defect of ours met while checking one statement: a finding at that statement (the
    trace goes to the log), so that the other statements and files are still checked."""
    log.error("internal error while linting %s at %s", source.path, span, exc_info=err)
    where = log_file()
    detail = str(err).splitlines()[0] if str(err) else ""
    return Diagnostic(
        code="E999",
        severity=Severity.ERROR,
        category=Category.INTERNAL,
        message=f"Internal error while checking this statement: {type(err).__name__}" + (f": {detail}" if detail else ""),
        hint=f"the trace is in {where}" if where else "the trace is in the log",
        source=source,
        span=span,
    )


def log_file() -> str | None:
    """The file the log goes to, if one is set up (the command line sets one up)."""
    for handler in logging.getLogger().handlers + logging.getLogger("sqlengine").handlers:
        if isinstance(handler, logging.FileHandler):
            return handler.baseFilename
    return None


def read_sql(path: Path) -> str | Diagnostic:
    """A file's text, or one positioned finding (E005) when it is not readable UTF-8 text."""
    try:
        data = path.read_bytes()
    except OSError as err:
        return _unreadable(path, "", 0, f"Cannot read this file: {err.strerror or err}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        text = data[: err.start].decode("utf-8")
        return _unreadable(
            path, text + "\ufffd", len(text), f"This file is not UTF-8 text: byte 0x{data[err.start]:02x} cannot be decoded",
            "save it as UTF-8 (Flink reads SQL files as UTF-8)",
        )


def _unreadable(path: Path, text: str, at: int, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(
        code="E005", severity=Severity.ERROR, category=Category.SYNTAX, message=message, hint=hint,
        source=SourceText(text, str(path)), span=Span(at, at + 1),
    )


def collect_files(paths: list[str | Path]) -> list[Path]:
    """The files named, and every *.sql under the directories named (sorted); a path that does
    not exist is a usage error."""
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*.sql") if f.is_file()))
        elif p.is_file():
            out.append(p)
        else:
            raise ConfigError(f"{raw}: no such file or directory")
    return list(dict.fromkeys(out))


class Linter:
    def __init__(self, config: LintConfig):
        self.config = config
        self.init: list[Statement] = []
        self.init_diagnostics: list[Diagnostic] = []
        for path in config.init:
            if not Path(path).is_file():
                raise ConfigError(f"--init {path}: no such file")
            text = read_sql(Path(path))
            if isinstance(text, Diagnostic):
                self.init_diagnostics.append(text)
                continue
            try:
                script = parse_script(text, str(path))  # its parser runs deep statements on a deep stack
            except Exception as err:  # a defect of ours: a finding, the other files still checked
                self.init_diagnostics.append(internal_diagnostic(err, SourceText(text, str(path)), Span(0, 1)))
                continue
            self.init_diagnostics.extend(error_diagnostic(e) for e in script.errors)
            self.init.extend(script.statements)
        self.prefixes = PrefixCache()

    def _new_session(self, catalog: Catalog) -> PlannerSession:
        settings = {} if self.config.rewrites else {REWRITES_SETTING: "off"}
        return PlannerSession(
            catalog, settings, variables=self.config.define, stats=self.config.stats, horizon_days=self.config.horizon_days,
            run_user_code=False,
        )

    def session(self) -> PlannerSession:
        """A session after the --init files (their state is kept after the first time)."""
        snap = self.prefixes.get("")
        if snap is not None:
            return restore(snap, self._new_session)
        session = self._new_session(Catalog.in_memory())
        for stmt in self.init:
            try:
                session.execute(stmt)
            except SqlError as err:
                self.init_diagnostics.append(error_diagnostic(err))
            except Exception as err:  # a defect of ours
                self.init_diagnostics.append(internal_diagnostic(err, stmt.source, stmt.span))
        self.prefixes.put("", snapshot(session, 0))
        return session

    def lint_text(self, text: str, path: str) -> tuple[list[Diagnostic], int]:
        """Findings of one file (after selection, severity overrides and noqa) and its statement count."""
        try:
            return self._lint_text(text, path)
        except Exception as err:  # a defect of ours outside any one statement: one finding for the file
            return self._select([(internal_diagnostic(err, SourceText(text, path), Span(0, 1)), Span(0, 1))], SourceText(text, path)), 1

    def _lint_text(self, text: str, path: str) -> tuple[list[Diagnostic], int]:
        source = SourceText(text, path)
        # resume after the longest leading run of setup statements seen before with this text:
        # only the rest of the file is tokenized, parsed and run
        key = self.prefixes.longest(text)
        snap = self.prefixes.get(key) if key else None
        offset = len(key) if snap is not None else 0
        try:
            tokens = tokenize(SourceText(text[offset:], path)) if offset else tokenize(source)
        except SqlError as err:
            err = SqlError(err.message, source, Span(err.span.start + offset, err.span.end + offset), err.hint, err.code)
            return self._select([(error_diagnostic(err), err.span)], source), 1 + (snap.statements if snap else 0)
        if offset:
            _shift(tokens, text, offset)
        pieces = [p for p in split(tokens) if p[0]]
        ends = [(p[2].end + 1 if p[2] is not None else p[0][-1].end + 1) for p in pieces]
        done = snap.statements if snap is not None else 0
        session = restore(snap, self._new_session) if snap is not None else self.session()
        setup = True  # still in the leading setup statements (their state can be kept)
        found: list[tuple[Diagnostic, Span]] = []
        for i, (tokens, inner, semi) in enumerate(pieces):
            try:
                stmt = parse_statement_tokens(source, tokens, inner, semi)
                outcome = session.execute(stmt)
            except SqlError as err:
                found.append((error_diagnostic(err), Span(tokens[0].start, ends[i])))
                setup = False
                continue
            except Exception as err:  # a defect of ours: a finding here, the next statements still checked
                span = Span(tokens[0].start, ends[i])
                found.append((internal_diagnostic(err, source, span), span))
                setup = False
                continue
            if outcome.analysis is not None:
                found.extend((d, stmt.span) for d in outcome.analysis.diagnostics)
            options = option_findings(session, stmt, outcome)
            found.extend((d, stmt.span) for d in options)
            if setup and outcome.kind in SETUP and outcome.analysis is None and not options:
                self.prefixes.put(text[: ends[i]], snapshot(session, done + i + 1))
            else:
                setup = False
        return self._select(found, source), done + len(pieces)

    def _select(self, found: list[tuple[Diagnostic, Span]], source: SourceText) -> list[Diagnostic]:
        noqa = suppressions(source)
        out = []
        for d, span in found:
            if not self.config.wants(d.code) or suppressed(d, noqa, span):
                continue
            severity = self.config.severity_of(d.code, d.severity)
            out.append(d if severity == d.severity else replace(d, severity=severity))
        return out

    def lint_file(self, f: Path) -> tuple[list[Diagnostic], int]:
        text = read_sql(f)
        if isinstance(text, Diagnostic):
            return [text] if self.config.wants(text.code) else [], 0
        return self.lint_text(text, str(f))

    def _parallel(self, files: list[Path], jobs: int) -> list[tuple[list[Diagnostic], int]]:
        return _parallel_results(self, files, jobs)

    def lint_files(self, files: list[Path], jobs: int | None = None) -> LintResult:
        """``jobs``: worker processes for many files (None: one per CPU; 1: in this process).
        Files are independent (each gets its own catalog), so they are linted in parallel."""
        jobs = default_jobs(len(files)) if jobs is None else max(1, jobs)
        diagnostics: list[Diagnostic] = []
        statements = 0
        for found, n in (self._parallel(files, jobs) if jobs > 1 else map(self.lint_file, files)):
            diagnostics.extend(found)
            statements += n
        diagnostics = [d for d in self.init_diagnostics if self.config.wants(d.code)] + diagnostics
        diagnostics.sort(key=lambda d: (d.path, d.line, d.column, d.code))
        return LintResult(tuple(diagnostics), len(files), statements, self.config)


def _shift(tokens: list[Token], text: str, offset: int) -> None:
    """Tokens of ``text[offset:]`` placed at their offsets, lines and columns in ``text``."""
    lines = text.count("\n", 0, offset)
    first_line_col = offset - (text.rfind("\n", 0, offset) + 1)
    for t in tokens:
        if t.line == 1:
            t.col += first_line_col
        t.line += lines
        t.start += offset
        t.end += offset


MIN_FILES_PER_JOB = 8


def default_jobs(files: int) -> int:
    cpus = os.cpu_count() or 1
    return max(1, min(cpus, files // MIN_FILES_PER_JOB))


_WORKER: Linter | None = None


def _lint_chunk(files: list[Path]) -> list[tuple[list[Diagnostic], int]]:
    assert _WORKER is not None
    return [_WORKER.lint_file(f) for f in files]


def _parallel_results(linter: Linter, files: list[Path], jobs: int) -> list[tuple[list[Diagnostic], int]]:
    """Results per file, in order, from ``jobs`` forked workers (each inherits the linter)."""
    global _WORKER
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform: lint here
        return [linter.lint_file(f) for f in files]
    chunks = [files[i::jobs] for i in range(jobs)]
    _WORKER = linter
    try:
        with ctx.Pool(jobs) as pool:
            parts = pool.map(_lint_chunk, chunks)
    finally:
        _WORKER = None
    by_file: dict[int, tuple[list[Diagnostic], int]] = {}
    for i, part in enumerate(parts):
        for j, result in enumerate(part):
            by_file[i + j * jobs] = result
    return [by_file[k] for k in range(len(files))]


def lint_paths(paths: list[str | Path], config: LintConfig | None = None) -> LintResult:
    config = config or LintConfig()
    return Linter(config).lint_files(collect_files(paths))
