"""Class-data sharing for the driver JVM we start: Spark's classes are mapped, already parsed and
verified, from an archive instead of being read and verified from its jars at every start
(bench/run_startup.py: a whole small `sqlengine run` 14.3 -> 8.2 s, 2 cores).

The archive is per user (not per home: it is about 170 MB), one per pyspark install and Java
build, in ``$SQLENGINE_CLASS_CACHE`` or ``$XDG_CACHE_HOME/sqlengine`` (``~/.cache/sqlengine``);
``SQLENGINE_CLASS_CACHE=off`` turns it off; the newest three are kept. Writing it makes a JVM's
exit 20-30 s longer, so the first JVM of a pair only leaves a mark and the second writes it (a
one-off machine, a CI job, never pays), when it exits (``-XX:ArchiveClassesAtExit``), under a name
of its own. Only a process that waits for its JVM to exit writes (``may_write``: `sqlengine run`
and the shell), and ``adopt`` moves the archive into place only after that JVM ended cleanly, so
a half-written one is never used; every later JVM maps it (``-XX:SharedArchiveFile``). A JVM that
cannot use it (other jars, another Java) starts without it, as HotSpot does with any archive that
does not match.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

ENV = "SQLENGINE_CLASS_CACHE"
OFF = ("off", "0", "false", "no")
# the flags that would fight ours: a user who sets any of them decides class sharing
_USER_FLAGS = ("SharedArchiveFile", "ArchiveClassesAtExit", "-Xshare")
STALE_SECONDS = 3600  # a pending archive this old belongs to a JVM that was killed
KEEP = 3  # archives kept (other pyspark installs, other Javas): the newest


@dataclass(frozen=True)
class Archive:
    path: Path  # where the archive is, or will be once adopted
    pending: Path | None  # set when this JVM writes it: the name it writes to

    def flag(self) -> str:
        if self.pending is not None:
            return f"-XX:ArchiveClassesAtExit={self.pending}"
        return f"-XX:SharedArchiveFile={self.path}"


_writing: Archive | None = None  # the archive this process's JVM writes at exit
_may_write = False  # does this process wait for its JVM to exit (may_write)?


def may_write() -> None:
    """This process stops its JVM and waits for it to exit (`sqlengine run`, the shell), so the
    JVM may write the archive then; any other process only maps one."""
    global _may_write
    _may_write = True


def cache_dir() -> Path | None:
    """Where archives are kept, or None when class sharing is turned off."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() in OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sqlengine"


def archive_name(java_path: str, java_version: str) -> str:
    """One archive per pyspark install and Java build: a JVM maps only an archive of its own
    build, and one whose jars have not changed since (a reinstall of the same pyspark makes them
    newer, so it gets an archive of its own instead of none)."""
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    try:
        installed = str(jars.stat().st_mtime_ns)
    except OSError:
        installed = ""
    key = hashlib.sha256(f"{Path(java_path).resolve()}\0{jars}\0{installed}".encode()).hexdigest()[:10]
    return f"spark-{pyspark.__version__}-java-{java_version}-{key}.jsa"


def choose(java_path: str, java_version: str, user_options: str) -> Archive | None:
    """The archive the next driver JVM maps, or writes when there is none yet; None when class
    sharing is off or the user's own JVM options already decide it."""
    global _writing
    directory = cache_dir()
    # Spark's launcher splits the JVM options on blanks: a path with one cannot be passed
    if directory is None or any(f in user_options for f in _USER_FLAGS) or any(c.isspace() for c in str(directory)):
        return None
    path = directory / archive_name(java_path, java_version)
    _remove_stale(directory)
    if path.is_file():
        return Archive(path, None)
    seen = path.with_name(f"{path.name}.seen")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        if not seen.exists():
            seen.touch()  # the first JVM of this pair: the next one writes the archive
            return None
    except OSError:
        return None  # an unwritable cache: start without
    if not _may_write:
        return None
    _writing = Archive(path, path.with_name(f"{path.name}.{os.getpid()}.part"))
    return _writing


def writing() -> bool:
    """Does this process's JVM write an archive when it exits (so it is worth waiting for)?"""
    return _writing is not None


def adopt(exit_code: int | None) -> Path | None:
    """After this process's JVM has exited: the archive it wrote, moved into place when the JVM
    ended cleanly (otherwise removed). Returns the adopted path."""
    global _writing
    archive, _writing = _writing, None
    if archive is None or archive.pending is None:
        return None
    pending = archive.pending
    try:
        if exit_code == 0 and pending.is_file() and pending.stat().st_size > 0:
            os.replace(pending, archive.path)  # atomic: a concurrent start sees all of it or nothing
            _keep_newest(archive.path.parent)
            return archive.path
    except OSError:
        pass
    finally:
        try:
            pending.unlink(missing_ok=True)
        except OSError:
            pass
    return None


def _keep_newest(directory: Path) -> None:
    try:
        archives = sorted(directory.glob("*.jsa"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:  # another process removed one meanwhile: the next adoption prunes
        return
    for old in archives[KEEP:]:
        try:
            old.unlink()
            old.with_name(f"{old.name}.seen").unlink(missing_ok=True)
        except OSError:
            pass


def _remove_stale(directory: Path) -> None:
    now = time.time()
    for part in directory.glob("*.part") if directory.is_dir() else ():
        try:
            if now - part.stat().st_mtime > STALE_SECONDS:
                part.unlink()
        except OSError:
            pass
