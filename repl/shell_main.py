"""``sqlengine`` started: the shell's entry (``repl.cli`` delegates to ``main``). It opens the
engine on the home, then runs the interactive shell (``repl.shell.Shell``) on the terminal, or,
with ``-f file.sql`` or statements piped on stdin, the statements without a prompt; either way it
shuts Spark down before the interpreter exits."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING

from repl.options import pairs
from repl.shell import EXIT_INTERRUPTED, EXIT_OK, EXIT_SQL, Shell
from repl.terminal import Terminal

if TYPE_CHECKING:
    from sqlengine.engine import Engine

log = logging.getLogger("sqlengine.shell")


def main(args: argparse.Namespace, *, term: Terminal | None = None, start_spark: bool = True) -> int:
    """The shell's entry (``repl.cli`` calls it). ``term`` and ``start_spark`` are for tests:
    another input/output than the process's terminal, and no Spark started at the prompt."""
    from catalog.home import resolve_home

    home = resolve_home(getattr(args, "home", None))
    home.mkdir(parents=True, exist_ok=True)
    from repl.logs import setup_logging

    setup_logging(home)
    from sqlengine import checkpoint_root

    try:
        variables = pairs(getattr(args, "define", None), "--define")
        conf = pairs(getattr(args, "conf", None), "--conf")
        settings = checkpoint_root.setting(getattr(args, "checkpoint_root", None), remote=bool(getattr(args, "remote", None)))
    except ValueError as err:
        print(f"sqlengine: {err}", file=sys.stderr)
        return EXIT_SQL
    from sqlengine import class_cache
    from sqlengine.engine import Engine

    if term is None:  # the shell of a terminal (not a test's): it stops its JVM and waits for it (_stop_spark)
        class_cache.may_write()
    try:
        engine = Engine(home, master=getattr(args, "master", None), remote=getattr(args, "remote", None),
                        conf=conf, variables=variables, settings=settings)
    except Exception as err:
        log.exception("engine")
        print(f"sqlengine: cannot open the engine home {home}: {err}", file=sys.stderr)
        return EXIT_SQL
    script = getattr(args, "file", None)
    if script is not None or (term is None and not sys.stdin.isatty()):
        return _run_script(engine, list(getattr(args, "init", None) or []), script)
    own_terminal = term is None
    term = term or Terminal()
    shell = Shell(engine, term, history=home / "history", start_spark=start_spark,
                  warm_up=not getattr(args, "no_warm_up", None))
    try:
        for init in getattr(args, "init", None) or []:
            if shell.run_file(init) != EXIT_OK:
                term.error(f"[ERROR] {init}: stopped at the error above; the shell starts anyway.")
        return shell.run()
    finally:
        if own_terminal:
            _stop_spark(engine)


def _stop_spark(engine: Engine) -> None:
    """Leaving: the jobs are stopped; shut Spark down before the interpreter does, so that no
    Py4J thread is left running while Python finalizes."""
    if not engine.spark_ready:
        return
    try:
        from sqlengine.session import stop_session

        stop_session()
    except Exception:
        log.debug("stopping Spark", exc_info=True)


def _run_script(engine: Engine, inits: list[str], script: str | None) -> int:
    """``-f file.sql`` (or statements piped on stdin): no prompt, stop at the first error."""
    from prompt_toolkit.output import create_output

    term = Terminal(interactive=False, output=create_output(sys.stdout), err_output=create_output(sys.stderr))
    shell = Shell(engine, term, start_spark=False)
    try:
        for path in [*inits, script] if script is not None else inits:
            code = shell.run_file(path)
            if code != EXIT_OK:
                shell.shutdown()
                return code
        if script is None and not shell.execute_text(sys.stdin.read(), "<stdin>"):
            shell.shutdown()
            return EXIT_SQL
        code = shell.wait_for_jobs()
        shell.shutdown()
        return code
    except KeyboardInterrupt:
        shell.shutdown()
        return EXIT_INTERRUPTED
    finally:
        _stop_spark(engine)
