"""``sqlengine``: the command line.

    sqlengine                      the interactive shell (repl.shell_main, repl.shell)
    sqlengine run FILE...          run statements on Spark (repl.run_cmd)
    sqlengine lint PATH...         findings for .sql files (planner.lint)
    sqlengine explain FILE         plan, state and advice of every query / INSERT
    sqlengine fmt FILE...|-        canonical layout (--check, --diff: report only)

Everything is imported lazily: ``lint``, ``explain`` and ``fmt`` never load pyspark. No Python
traceback reaches the user: an unexpected error prints one line and its trace goes to
``<home>/logs/sqlengine.log`` (a temporary directory when the home cannot be created). A closed
standard output (``| head``) ends every command quietly with status 141 (``repl.pipes``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from planner.analysis.analyze import Analysis
    from planner.statements.script import ParsedScript, Statement

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad options or files: one line on stderr, exit 2."""


def _err(message: str) -> None:
    print(f"sqlengine: {message}", file=sys.stderr)


def _defines(values: list[str] | None) -> dict[str, str]:
    from repl.options import pairs

    try:
        return pairs(values, "--define")
    except ValueError as err:
        raise UsageError(str(err)) from None


def _codes(values: list[str] | None) -> tuple[str, ...]:
    return tuple(c.strip().upper() for v in values or [] for c in v.split(",") if c.strip())


# -- lint ------------------------------------------------------------------------------------------


def cmd_lint(args: argparse.Namespace) -> int:
    from planner.lint import ConfigError, LintConfig, Linter, collect_files, find_config, load_config, render

    try:
        if args.config:
            config = load_config(Path(args.config))
        else:
            found = find_config(Path(args.paths[0]) if args.paths else Path.cwd())
            config = load_config(found) if found else LintConfig()
        config = config.merged(
            select=_codes(args.select),
            ignore=_codes(args.ignore),
            fail_on=args.fail_on,
            define=_defines(args.define),
            init=tuple(Path(p) for p in args.init or []),
            rewrites=args.format in ("json", "sarif"),
        )
        linter = Linter(config)
        result = linter.lint_files(collect_files(args.paths), jobs=args.jobs or None)
    except ConfigError as err:
        raise UsageError(str(err)) from None
    out = render(result, args.format)
    if args.output:
        Path(args.output).write_text(out)
    else:
        sys.stdout.write(out)
    counts = result.counts()
    total = len(result.diagnostics)
    print(
        f"{_count(total, 'finding')} ({_count(counts['error'], 'error')}, {_count(counts['warning'], 'warning')}, "
        f"{counts['info']} info) in {_count(result.statements, 'statement')} of {_count(result.files, 'file')}",
        file=sys.stderr,
    )
    return result.exit_code


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# -- explain ---------------------------------------------------------------------------------------


def cmd_explain(args: argparse.Namespace) -> int:
    from catalog import Catalog
    from planner.analysis.physical import JVM_SETTING
    from planner.errors import SqlError
    from planner.statements.script import parse_script
    from planner.statements.session import Kind, PlannerSession
    from sqlengine import jvm

    session = PlannerSession(Catalog.in_memory(), variables=_defines(args.define), run_user_code=False)
    if not jvm.available():  # as `sqlengine run` would run it here
        session.environment[JVM_SETTING] = "false"
    status = EXIT_OK
    for init in args.init or []:
        script = _read_script(init, parse_script)
        for e in script.errors:
            print(e.render(), file=sys.stderr)
            status = EXIT_USAGE
        for stmt in script.statements:
            try:
                session.execute(stmt)
            except SqlError as err:
                print(err.render(), file=sys.stderr)
                status = EXIT_USAGE
    script = _read_script(args.file, parse_script)
    for e in script.errors:
        print(e.render(), file=sys.stderr)
        status = EXIT_USAGE
    explained: list[tuple[Statement, Analysis, str | None]] = []
    for stmt in script.statements:
        try:
            outcome = session.execute(stmt)
        except SqlError as err:
            print(err.render(), file=sys.stderr)
            status = EXIT_USAGE
            continue
        if outcome.analysis is not None and outcome.kind in (Kind.QUERY, Kind.INSERT, Kind.STATEMENT_SET, Kind.EXPLAIN):
            # an EXPLAIN statement's own text honours its details (EXPLAIN CHANGELOG_MODE ...)
            explained.append((stmt, outcome.analysis, outcome.text if outcome.kind == Kind.EXPLAIN else None))
    sys.stdout.write(_render_explained(explained, args.format))
    if not explained and status == EXIT_OK:
        _err(f"{args.file}: no query, INSERT or statement set to explain")
    return status


def _read_script(path: str, parse_script: Callable[[str, str], ParsedScript]) -> ParsedScript:
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
    return parse_script(text, path)


def _render_explained(explained: list[tuple[Statement, Analysis, str | None]], fmt: str) -> str:
    if fmt == "json":
        import json

        from planner.explain.json_plan import to_dict

        items = [
            {"path": s.source.name, "line": s.line, "column": s.column, "statement": s.text, **to_dict(a)} for s, a, _t in explained
        ]
        return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
    chunks = []
    for stmt, analysis, text in explained:
        where = f"{stmt.source.name}:{stmt.line}"
        if fmt == "mermaid":
            from planner.explain.mermaid import render_mermaid

            chunks.append(f"**{where}**\n\n{render_mermaid(analysis, fenced=True)}")
        else:
            from planner.explain.text import render_text

            chunks.append(f"-- {where}\n{text or render_text(analysis)}")
    return "\n".join(chunks)


# -- fmt -------------------------------------------------------------------------------------------


def cmd_fmt(args: argparse.Namespace) -> int:
    """Format files in place (``-``: stdin to stdout); ``--check`` and ``--diff`` change nothing.
    A file with any error is left untouched and its errors printed (exit 2)."""
    import difflib

    from planner.errors import SqlErrors
    from planner.fmt import format_sql

    status = EXIT_OK
    changed = 0
    for path in args.files:
        stdin = path == "-"
        try:
            text = sys.stdin.read() if stdin else Path(path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            _err(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}")
            status = EXIT_USAGE
            continue
        name = "<stdin>" if stdin else path
        try:
            formatted = format_sql(text, name)
        except SqlErrors as errs:
            for e in errs.errors:
                print(e.render(), file=sys.stderr)
            status = EXIT_USAGE
            continue
        if args.diff:
            for line in difflib.unified_diff(
                text.splitlines(keepends=True), formatted.splitlines(keepends=True), f"{name}", f"{name} (formatted)"
            ):  # as diff(1) marks a last line with no newline
                sys.stdout.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        elif stdin and not args.check:
            sys.stdout.write(formatted)
        if formatted == text:
            continue
        changed += 1
        if args.check or args.diff:
            if args.check:
                print(f"would reformat {name}", file=sys.stderr if args.diff else sys.stdout)
            status = max(status, EXIT_FINDINGS)
        elif not stdin:
            Path(path).write_text(formatted)
            print(f"reformatted {path}")
    if args.check and status == EXIT_OK:
        print(f"{len(args.files)} file{'s' if len(args.files) != 1 else ''} already formatted", file=sys.stderr)
    return status


# -- run / submit / shell: written elsewhere ----------------------------------------------------------------
# ``repl.run_cmd``, ``repl.submit_cmd`` and ``repl.shell_main`` each provide ``main(args: argparse.Namespace) -> int``. They
# are imported only here, so that lint/explain/fmt never import the engine.


def _delegate(module: str, args: argparse.Namespace) -> int:
    import importlib

    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name == module:
            _err(f"`{args.command or 'shell'}` is not available in this build ({module} is missing)")
            return EXIT_USAGE
        raise
    return int(mod.main(args) or 0)


def cmd_run(args: argparse.Namespace) -> int:
    return _delegate("repl.run_cmd", args)


def cmd_submit(args: argparse.Namespace) -> int:
    return _delegate("repl.submit_cmd", args)


def cmd_shell(args: argparse.Namespace) -> int:
    return _delegate("repl.shell_main", args)


# -- parser and entry ------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise UsageError(message)

    def parse_args(self, args: Sequence[str] | None = None, namespace: None = None) -> argparse.Namespace:  # type: ignore[override]
        return merge_levels(super().parse_args(args, namespace))


# A subcommand's copy of an option the top level has too is kept under this prefix, so that
# `sqlengine --master URL run f.sql` and `sqlengine run --master URL f.sql` both count (argparse
# would let the subcommand's default overwrite the top level's value): merge_levels joins them.
SUB = "sub_"


def merge_levels(args: argparse.Namespace) -> argparse.Namespace:
    """One value per option from the top level and the subcommand: lists (--conf, -D, --init) are
    joined, top level first; a single value given to the subcommand wins; where Spark runs
    (--master or --remote) is decided by the subcommand when it names either."""
    given = {k[len(SUB):]: v for k, v in vars(args).items() if k.startswith(SUB)}
    for key in list(vars(args)):
        if key.startswith(SUB):
            delattr(args, key)
    if given.get("master") is not None or given.get("remote") is not None:
        args.master, args.remote = given.pop("master", None), given.pop("remote", None)
    for name, value in given.items():
        mine = getattr(args, name, None)
        if isinstance(value, list) or isinstance(mine, list):
            setattr(args, name, (mine or []) + (value or []) or None)
        elif value is not None or not hasattr(args, name):
            setattr(args, name, value)
    # $SPARK_REMOTE only when neither level said where Spark runs: an explicit --master beats it
    if hasattr(args, "remote") and args.remote is None and getattr(args, "master", None) is None:
        args.remote = os.environ.get("SPARK_REMOTE") or None
    return args


def shell_options(sp: argparse.ArgumentParser, level: str = "") -> None:
    sp.add_argument("-i", "--init", action="append", metavar="FILE", dest=f"{level}init",
                    help="SQL file run before the prompt (DDL, SET)")
    sp.add_argument("-f", "--file", metavar="FILE", dest=f"{level}file",
                    help="run FILE's statements without a prompt, then exit (non-zero on error)")
    sp.add_argument("--define", "-D", action="append", metavar="NAME=VALUE", dest=f"{level}define", help="a ${NAME} variable")
    sp.add_argument("--no-warm-up", action="store_true", default=None, dest=f"{level}no_warm_up",
                    help="no background query warming a new Spark up while the first statement is typed")
    spark_options(sp, level)


def spark_options(sp: argparse.ArgumentParser, level: str = "") -> None:
    """Where Spark runs (docs/deploying.md)."""
    where = sp.add_mutually_exclusive_group()
    where.add_argument("--master", dest=f"{level}master",
                       help="Spark master: local[N] (default local[*]), spark://host:port, yarn, k8s://...")
    # its default, $SPARK_REMOTE, is applied by merge_levels: an explicit --master must beat it
    where.add_argument("--remote", dest=f"{level}remote",
                       help="a Spark Connect server, sc://host:port (default $SPARK_REMOTE)")
    sp.add_argument("--conf", action="append", metavar="KEY=VALUE", dest=f"{level}conf", help="a Spark configuration value")
    checkpoint_option(sp, level)


def checkpoint_option(sp: argparse.ArgumentParser, level: str = "") -> None:
    sp.add_argument("--checkpoint-root", metavar="DIR", dest=f"{level}checkpoint_root",
                    help="where jobs keep their checkpoints (default <home>/checkpoints; on a cluster, hdfs://... or a directory every machine mounts); "
                         "as SET 'execution.checkpointing.dir'")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="sqlengine", description="Streaming SQL on Spark: Flink SQL, state analysis, lint.")
    p.add_argument("--home", help="engine home (catalog, logs, checkpoints); default $SQLENGINE_HOME or ~/.sqlengine")
    shell_options(p)  # `sqlengine -i init.sql`, `sqlengine -f file.sql`: the shell is the default command
    sub = p.add_subparsers(dest="command", parser_class=_Parser)

    def engine_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--init", action="append", metavar="FILE", dest=f"{SUB}init", help="SQL file run first (DDL)")
        sp.add_argument("--define", "-D", action="append", metavar="NAME=VALUE", dest=f"{SUB}define", help="a ${NAME} variable")
        spark_options(sp, SUB)

    sp = sub.add_parser("shell", help="the interactive shell (the default)")
    shell_options(sp, SUB)
    sp.set_defaults(func=cmd_shell)

    sp = sub.add_parser("run", help="run the statements of SQL files")
    sp.add_argument("files", nargs="+", metavar="FILE")
    engine_options(sp)
    sp.add_argument("--set", action="append", metavar="KEY=VALUE", help="a setting, as SET 'key' = 'value'")
    sp.add_argument("--format", choices=("tableau", "json", "csv"), default="tableau", help="how SELECT results are printed")
    sp.add_argument("--bounded", action="store_true", help="run in batch mode (execution.runtime-mode = batch)")
    sp.add_argument("--changelog", action="store_true", help="print each SELECT's changelog (+I, -U, +U, -D in an op column), not its final table")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("submit", help="run a .sql file as a Spark application through spark-submit")
    sp.add_argument("file", metavar="FILE")
    sp.add_argument("--master", dest=f"{SUB}master", help="Spark master: local[N] (default local[*]), spark://host:port, yarn, k8s://...")
    sp.add_argument("--deploy-mode", choices=("client", "cluster"), default="client", help="where the driver runs (default client)")
    sp.add_argument("--conf", action="append", metavar="KEY=VALUE", dest=f"{SUB}conf", help="a Spark configuration value")
    sp.add_argument("--set", action="append", metavar="KEY=VALUE", help="a setting, as SET 'key' = 'value'")
    sp.add_argument("--define", "-D", action="append", metavar="NAME=VALUE", dest=f"{SUB}define", help="a ${NAME} variable")
    sp.add_argument("--format", choices=("tableau", "json", "csv"), default="tableau", help="how SELECT results are printed")
    checkpoint_option(sp, SUB)
    sp.add_argument("--dry-run", action="store_true", help="print the spark-submit command, run nothing")
    sp.set_defaults(func=cmd_submit)

    sp = sub.add_parser("lint", help="check .sql files for unbounded state, non-determinism and what Spark cannot run")
    sp.add_argument("paths", nargs="+", metavar="PATH", help="files, or directories searched for *.sql")
    sp.add_argument("--init", action="append", metavar="FILE", dest=f"{SUB}init", help="DDL run before every linted file")
    sp.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    sp.add_argument("--fail-on", choices=("error", "warning", "info", "none"), help="lowest severity that fails (default warning)")
    sp.add_argument("--select", action="append", metavar="CODES", help="report only these codes or prefixes (comma separated)")
    sp.add_argument("--ignore", action="append", metavar="CODES", help="do not report these codes or prefixes")
    sp.add_argument("--define", "-D", action="append", metavar="NAME=VALUE", dest=f"{SUB}define")
    sp.add_argument("--config", metavar="FILE", help="pyproject.toml with [tool.sqlengine.lint] (default: found upwards)")
    sp.add_argument("--output", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    sp.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes for many files (0: one per CPU)")
    sp.set_defaults(func=cmd_lint)

    sp = sub.add_parser("explain", help="plan, state and advice of every query and INSERT of a file")
    sp.add_argument("file", metavar="FILE")
    sp.add_argument("--init", action="append", metavar="FILE", dest=f"{SUB}init")
    sp.add_argument("--format", choices=("text", "json", "mermaid"), default="text")
    sp.add_argument("--define", "-D", action="append", metavar="NAME=VALUE", dest=f"{SUB}define")
    sp.set_defaults(func=cmd_explain)

    sp = sub.add_parser("fmt", help="format SQL files in place (- : stdin to stdout)")
    sp.add_argument("files", nargs="+", metavar="FILE")
    sp.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    sp.add_argument("--diff", action="store_true", help="change nothing; print a unified diff; exit 1 if a file would change")
    sp.set_defaults(func=cmd_fmt)
    return p


def _log_crash(args: argparse.Namespace | None) -> Path | None:
    """Write the current exception's trace to the engine's log; returns the log file."""
    import logging
    import tempfile
    import traceback

    trace = traceback.format_exc()
    try:
        from planner.redact import mask_secrets

        trace = mask_secrets(trace)  # a trace may quote a statement with its password
    except Exception:  # the planner itself failed to import: keep the trace as it is
        pass
    candidates: list[Callable[[], Path]] = []
    try:
        from catalog.home import resolve_home

        candidates.append(lambda: resolve_home(getattr(args, "home", None)) / "logs")
    except Exception:  # the catalog package itself failed to import
        pass
    candidates.append(lambda: Path(tempfile.gettempdir()) / "sqlengine-logs")
    for make in candidates:
        try:
            logs = make()
            logs.mkdir(mode=0o700, parents=True, exist_ok=True)  # owner-only: a trace may quote a statement
            log = logs / "sqlengine.log"
            with log.open("a") as f:
                f.write(f"{logging.Formatter().formatTime(logging.makeLogRecord({}))} sqlengine {sys.argv[1:]}\n{trace}\n")
            return log
        except Exception:
            continue
    return None


def main(argv: list[str] | None = None) -> int:
    from repl.pipes import OutputClosed, is_closed_output, quiet_exit

    args = None
    try:
        from planner.dialect import unusable_build

        problem = unusable_build()
        if problem is not None:
            raise UsageError(problem)
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            args.command = "shell"
            code = cmd_shell(args)
        else:
            code = args.func(args)
        sys.stdout.flush()  # a closed output fails here, not in the interpreter's final flush
        sys.stderr.flush()
        return code
    except UsageError as err:
        _err(str(err))
        return EXIT_USAGE
    except SystemExit as err:  # argparse --help
        return int(err.code or 0) if isinstance(err.code, int) or err.code is None else EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except OutputClosed:  # `| head` has read enough: end quietly, status 141 (repl.pipes)
        return quiet_exit()
    except Exception as err:
        if is_closed_output(err):
            return quiet_exit()
        log = _log_crash(args)
        where = f" (details in {log})" if log else ""
        _err(f"internal error: {type(err).__name__}: {err}{where}")
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
