"""Which Python Spark starts its Python workers with, when they run on this machine.

Spark starts each worker with ``$PYSPARK_PYTHON -m <module>`` (default: the first ``python3``
on the PATH) and puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on its PYTHONPATH. For a pip
install of pyspark that zip is a second copy of the installed package, and Python keeps no
compiled bytecode for a zip: every worker Spark starts compiles pyspark from source, 2 s of CPU
here before it does anything (0.6 s importing the installed package). Most workers fork from
one daemon that pays it once, but the driver starts a fresh Python per changelog operator
(``transformWithState``) at every query start to read its state schema, so each operator's
first micro-batch paid it (measured: 1.8-3 s per operator per query start).

So on this machine the workers run this interpreter (which has sqlengine and its dependencies;
the first ``python3`` on the PATH may not, and a version manager's shim costs 0.15 s per start),
through a small launcher that drops the two zips from PYTHONPATH when they duplicate the
installed pyspark and py4j. On a cluster the workers keep PYSPARK_PYTHON or Spark's default:
this interpreter's path may not exist there.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import sys
from pathlib import Path

LAUNCHER = "python-worker.sh"


def worker_env(on_this_machine: bool, log_dir: Path) -> dict[str, str]:
    """The environment the SparkContext is created in (it reads PYSPARK_PYTHON once): empty
    when the user chose a Python, or the workers may run elsewhere."""
    if "PYSPARK_PYTHON" in os.environ or not on_this_machine:
        return {}
    zips = duplicate_zips()
    if not zips or os.name != "posix":
        return {"PYSPARK_PYTHON": sys.executable}
    try:
        launcher = write_launcher(log_dir / LAUNCHER, sys.executable, zips)
    except OSError:
        return {"PYSPARK_PYTHON": sys.executable}
    return {"PYSPARK_PYTHON": str(launcher)}


def duplicate_zips() -> tuple[str, ...]:
    """Spark's pyspark and py4j zips, when this interpreter imports both packages from outside
    them (pip's layout: SPARK_HOME is the installed pyspark package, the zips inside it)."""
    import pyspark

    home = Path(pyspark.__file__).resolve().parent
    lib = home / "python" / "lib"
    py4j = importlib.util.find_spec("py4j")
    if py4j is None or py4j.origin is None or not Path(py4j.origin).is_file():
        return ()  # py4j only in the zip: it stays
    if not (lib / "pyspark.zip").is_file():
        return ()  # not pip's layout
    return tuple(str(z) for z in [lib / "pyspark.zip", *sorted(lib.glob("py4j-*-src.zip"))])


def write_launcher(path: Path, python: str, zips: tuple[str, ...]) -> Path:
    """A POSIX shell script that removes ``zips`` from PYTHONPATH and runs ``python``."""
    cases = "|".join(shlex.quote(z) for z in zips)
    text = f"""#!/bin/sh
# Spark's Python workers on this machine (written by sqlengine.python_workers): pyspark and py4j
# from the installed packages, whose bytecode is compiled, instead of Spark's zips of them
set -f
kept=
IFS=:
for entry in $PYTHONPATH; do
    case "$entry" in
        {cases}) ;;
        *) kept="${{kept:+$kept:}}$entry" ;;
    esac
done
unset IFS
PYTHONPATH=$kept
export PYTHONPATH
exec {shlex.quote(python)} "$@"
"""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != text:
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(path)
    return path
