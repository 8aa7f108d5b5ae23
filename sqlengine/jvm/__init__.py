"""sqlengine's changelog operators that run on the JVM (``*.java`` beside this file), and the jar
they are built into.

Why: a changelog operator in Python pays for every row twice over (Arrow across to a Python
worker and back, and Python's own per-row work), and transformWithState keeps its state only in
RocksDB. A Java operator on Spark's ``flatMapGroupsWithState`` keeps its rows in the JVM and its
state in whichever store the job uses (docs/benchmarks.md: Nexmark q19's Top-N at about 2.4 times
the Python operator's rows per second).

The jar is compiled on first use with the JDK's ``javac`` against this pyspark's own jars (so it
always matches the Spark it runs on), and cached per user under the source's and Spark's hash:
``$SQLENGINE_CACHE`` or ``$XDG_CACHE_HOME/sqlengine`` (``~/.cache/sqlengine``). Without a
``javac`` (a JRE only), or with ``sqlengine.changelog.jvm = false``, the planner chooses the
Python operators instead (``available``; EXPLAIN says which runs).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import threading
import zipfile
from pathlib import Path

from sqlengine.java import find_java

log = logging.getLogger(__name__)

SOURCES = tuple(sorted(Path(__file__).parent.glob("*.java")))
CACHE_ENV = "SQLENGINE_CACHE"
KEEP = 3  # jars kept (other pyspark installs, other sqlengine versions): the newest
_building = threading.Lock()  # one build per process (another process builds under its own name)


class BuildFailed(RuntimeError):
    """The operators' jar could not be built; ``str(err)`` is one line fit to show a user."""


def cache_dir() -> Path:
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "sqlengine"


def _spark_jars() -> Path:
    """The directory of Spark's jars: pyspark's own, also when pyspark is imported from the
    ``python/lib/pyspark.zip`` inside it (as spark-submit and a cluster's workers put it on the
    path), or else ``$SPARK_HOME/jars``."""
    import pyspark

    here = Path(pyspark.__file__).parent
    spark_home = os.environ.get("SPARK_HOME")
    for root in (here, *here.parents, *([Path(spark_home)] if spark_home else [])):
        if any((root / "jars").glob("spark-sql_*.jar")):
            return root / "jars"
    return here / "jars"  # (javac then says what is missing, in the log)


def _javac() -> str | None:
    return find_java("javac")[0]  # beside the java Spark runs on


def jar_path() -> Path:
    """Where the jar of these sources built against this pyspark is (or will be) cached."""
    from importlib.metadata import version  # pyspark's, without importing it (lint and explain ask)

    digest = hashlib.sha256(version("pyspark").encode())
    for source in SOURCES:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return cache_dir() / f"operators-{digest.hexdigest()[:16]}.jar"


def available() -> bool:
    """Whether the JVM operators can run here: their jar is built, or a javac can build it."""
    return jar_path().is_file() or _javac() is not None


def jar() -> Path:
    """The operators' jar, built if it is not cached yet (a few seconds, once per pyspark)."""
    path = jar_path()
    if path.is_file():
        return path
    with _building:
        if path.is_file():
            return path
        try:
            return _build(path)
        except OSError as err:  # the cache directory cannot be written, javac cannot be run
            raise BuildFailed(f"sqlengine's JVM operators could not be built in {path.parent}: {err.strerror or err}; "
                              f"set {CACHE_ENV} to a writable directory, or 'sqlengine.changelog.jvm' = 'false'") from None


def _build(path: Path) -> Path:
    javac = _javac()
    if javac is None:
        raise BuildFailed("sqlengine's JVM operators need a JDK's javac (a JRE has none); set 'sqlengine.changelog.jvm' = 'false' to run them in Python")
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sqlengine-jvm-") as tmp:
        classes = Path(tmp) / "classes"
        cmd = [javac, "--release", "17", "-nowarn", "-cp", str(_spark_jars() / "*"), "-d", str(classes), *map(str, SOURCES)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            log.error("javac failed (%s):\n%s%s", " ".join(cmd), proc.stdout, proc.stderr)
            raise BuildFailed(f"sqlengine's JVM operators did not compile with {javac} (the log has javac's output)")
        # written under a name of its own, then renamed: a concurrent build never sees half a jar
        pending = Path(tmp) / path.name
        with zipfile.ZipFile(pending, "w", zipfile.ZIP_DEFLATED) as zf:
            for f in sorted(classes.rglob("*.class")):
                zf.write(f, f.relative_to(classes).as_posix())
        moved = path.with_suffix(f".{os.getpid()}.tmp")
        shutil.move(str(pending), str(moved))  # (the temporary directory may be on another file system)
        os.replace(moved, path)
    log.info("built %s", path)
    _prune(path.parent)
    return path


def _prune(directory: Path) -> None:
    """Remove all but the newest ``KEEP`` jars (a running JVM keeps the one it opened)."""
    jars = sorted(directory.glob("operators-*.jar"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in jars[KEEP:]:
        try:
            old.unlink()
        except OSError:
            pass
