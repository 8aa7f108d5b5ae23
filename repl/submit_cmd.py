"""`sqlengine submit FILE.sql`: run a .sql file as a Spark application through spark-submit.

spark-submit starts the driver JVM with the cluster's settings (``--master``, ``--deploy-mode``,
``--conf``, spark-defaults.conf) and runs ``repl/spark_main.py``, which is `sqlengine run` in
that driver: the session then keeps spark-submit's settings (``sqlengine.session``). In cluster
deploy mode (YARN, Kubernetes; Spark's standalone master runs no Python driver in the cluster)
the file travels with ``--files`` and sqlengine must be installed in the driver's Python.
The driver's own log goes to the home's log file, as with `sqlengine run`; in client mode
spark-submit's output goes to ``logs/spark-submit.out`` and the driver's output reaches our
stdout and stderr through named pipes (``repl.spark_main``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, TextIO

from repl import spark_main
from repl.options import pairs


def spark_submit() -> str:
    """spark-submit of SPARK_HOME, or of the installed pyspark (a Spark distribution too)."""
    if os.environ.get("SPARK_HOME"):
        return str(Path(os.environ["SPARK_HOME"]) / "bin" / "spark-submit")
    import pyspark

    return str(Path(pyspark.__file__).resolve().parent / "bin" / "spark-submit")


def command(args: argparse.Namespace, home: Path, log4j: Path | None) -> list[str]:
    """The spark-submit command line for ``args``."""
    cluster = args.deploy_mode == "cluster"
    sql = Path(args.file)
    argv = [spark_submit(), "--master", args.master or "local[*]", "--deploy-mode", args.deploy_mode,
            "--name", f"sqlengine {sql.name}"]
    if log4j is not None and not cluster:  # the driver runs here: its log to our log file
        argv += ["--driver-java-options", f"-Dlog4j.configurationFile=file:{log4j}"]
    for pair in args.conf or []:
        argv += ["--conf", pair]
    if cluster:
        argv += ["--files", str(sql)]
    argv += [spark_main.__file__, "--home", str(home), "run", sql.name if cluster else str(sql), "--format", args.format]
    if getattr(args, "checkpoint_root", None):
        argv += ["--checkpoint-root", args.checkpoint_root]
    for flag, values in (("--set", args.set), ("--define", args.define)):
        for v in values or []:
            argv += [flag, v]
    return argv


def main(args: argparse.Namespace) -> int:
    from catalog.home import resolve_home
    from sqlengine.spark_logging import write_log4j_config

    home = resolve_home(getattr(args, "home", None))
    if not Path(args.file).is_file():
        print(f"[ERROR] {args.file}: no such file", file=sys.stderr)
        return 2
    try:  # a malformed option fails here, not in the driver after spark-submit has started it
        for flag, values in (("--conf", args.conf), ("--set", args.set), ("--define", args.define)):
            pairs(values, flag)
    except ValueError as err:
        print(f"[ERROR] {err}", file=sys.stderr)
        return 2
    log4j = None if args.dry_run else write_log4j_config(home / "logs")
    argv = command(args, home, log4j)
    if args.dry_run:
        print(shlex.join(argv))
        return 0
    env = dict(os.environ)
    env.setdefault("PYSPARK_PYTHON", sys.executable)  # the Python workers: this one, with sqlengine
    env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if args.deploy_mode == "cluster":  # the driver's output is the cluster's (its logs)
        return _submit(argv, env, None, None)
    with tempfile.TemporaryDirectory(prefix="sqlengine-submit-") as tmp:
        pipes = [os.path.join(tmp, name) for name in ("out", "err")]
        for path in pipes:
            os.mkfifo(path)
        env[spark_main.PIPES] = os.pathsep.join(pipes)
        copies = [threading.Thread(target=_copy, args=(path, stream), daemon=True) for path, stream in zip(pipes, (sys.stdout, sys.stderr), strict=True)]
        for t in copies:
            t.start()
        (home / "logs").mkdir(parents=True, exist_ok=True)
        with open(home / "logs" / "spark-submit.out", "ab") as log:
            code = _submit(argv, env, log, log)
        for path in pipes:  # a driver that never started never opened them: let the copies end
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        for t in copies:
            t.join(10)
    return code


def _submit(argv: list[str], env: dict[str, str], out: Any, err: Any) -> int:
    try:
        return subprocess.run(argv, env=env, stdout=out, stderr=err).returncode
    except OSError as e:
        print(f"[ERROR] cannot run spark-submit ({argv[0]}): {e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def _copy(path: str, stream: TextIO) -> None:
    """The driver's output through a named pipe, line by line, as it comes."""
    with open(path, "rb") as pipe:
        for line in pipe:
            stream.write(line.decode(errors="replace"))
            stream.flush()
