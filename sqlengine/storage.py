"""Where checkpoints, savepoints and a job's own files live: a local directory (``pathlib.Path``)
or any file system Hadoop reaches (``hdfs://``, ``s3a://`` with its jar, ``viewfs://``...), read and
written through the Hadoop ``FileSystem`` of Spark's own JVM, so the same configuration and jars
Spark's checkpoints use. sqlengine reads checkpoints itself (savepoints, SHOW STATE, the end of a
bounded input), so both kinds offer the same few operations: ``Location`` is what a caller may
use, and the module's functions do what pathlib has no method for.

A Hadoop location needs the driver's JVM: over Spark Connect (``--remote``) there is none in this
process, and using one is a ``StorageError`` (an OSError) saying so.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol


class Location(Protocol):
    """What sqlengine does with a directory or file of a checkpoint: ``pathlib.Path`` is one."""

    @property
    def name(self) -> str: ...
    @property
    def parent(self) -> Location: ...
    def __truediv__(self, key: str) -> Location: ...
    def exists(self) -> bool: ...
    def is_dir(self) -> bool: ...
    def is_file(self) -> bool: ...
    def iterdir(self) -> Iterator[Location]: ...
    def glob(self, pattern: str) -> Iterator[Location]: ...
    def read_text(self) -> str: ...
    def write_text(self, data: str) -> object: ...
    def mkdir(self, *, parents: bool = False, exist_ok: bool = False) -> None: ...


class StorageError(OSError):
    """A file system sqlengine cannot reach from here: one line fit to show; ``kind``: the Java
    exception's class, when the JVM raised it."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


def is_uri(text: str) -> bool:
    """A Hadoop URI other than ``file:``: ``hdfs://nn:8020/x``."""
    return "://" in text and not text.startswith("file:")


def location(text: str) -> Location:
    """The directory a setting or option names: a path, a ``file:`` URI or a Hadoop URI."""
    return HadoopPath(text) if is_uri(text) else local_path(text)


def local_path(text: str) -> Path:
    """The local directory a path or a ``file:`` URI names (Flink writes them as URIs too)."""
    for prefix in ("file://", "file:"):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    return Path(text).expanduser().resolve()


class HadoopPath:
    """A file or directory on a Hadoop file system, by its URI (``scheme://authority/path``, no
    trailing slash but the root's). Compares and sorts by it; ``same`` says whether two spellings
    name one directory."""

    def __init__(self, uri: str) -> None:
        scheme, rest = uri.split("://", 1)
        authority, _, path = rest.partition("/")
        self.uri = f"{scheme}://{authority}/{path.strip('/')}"

    def __str__(self) -> str:
        return self.uri

    def __repr__(self) -> str:
        return f"HadoopPath({self.uri!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HadoopPath) and other.uri == self.uri

    def __hash__(self) -> int:
        return hash(self.uri)

    def __lt__(self, other: HadoopPath) -> bool:
        return self.uri < other.uri

    def __truediv__(self, key: str) -> HadoopPath:
        return HadoopPath(f"{self.uri.rstrip('/')}/{key.strip('/')}" if self.name else f"{self.uri}{key.strip('/')}")

    @property
    def name(self) -> str:
        return self.uri.split("://", 1)[1].partition("/")[2].rsplit("/", 1)[-1]

    @property
    def parent(self) -> HadoopPath:
        return HadoopPath(self.uri.rsplit("/", 1)[0] + "/") if self.name else self

    def exists(self) -> bool:
        fs, path = _fs(self)
        return bool(_call(self, lambda: fs.exists(path)))

    def is_dir(self) -> bool:
        status = self._status()
        return status is not None and bool(status.isDirectory())

    def is_file(self) -> bool:
        status = self._status()
        return status is not None and bool(status.isFile())

    def _status(self) -> Any:
        """Hadoop's FileStatus of it (None: nothing there), in one call to the file system."""
        fs, path = _fs(self)
        try:
            return _call(self, lambda: fs.getFileStatus(path))
        except FileNotFoundError:
            return None

    def iterdir(self) -> Iterator[HadoopPath]:
        fs, path = _fs(self)
        statuses = _call(self, lambda: fs.listStatus(path))
        yield from sorted(self / str(s.getPath().getName()) for s in statuses)

    def glob(self, pattern: str) -> Iterator[HadoopPath]:
        """Hadoop's glob (``*``, ``?``, ``[0-9]``, ``{a,b}``) of a pattern under this directory
        (whose own name is taken as it is written, not as a pattern)."""
        escaped = HadoopPath("".join("\\" + c if c in _GLOB_CHARS else c for c in self.uri))
        fs, path = _fs(escaped / pattern)
        statuses = _call(self, lambda: fs.globStatus(path)) or []
        base = _qualified(self)
        for s in sorted(str(s.getPath().toString()) for s in statuses):
            yield self / s[len(base) :] if s.startswith(base + "/") else HadoopPath(s)

    def read_text(self) -> str:
        fs, path = _fs(self)
        jvm = _jvm()

        def read() -> str:
            stream = fs.open(path)
            try:
                text: str = jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
                return text
            finally:
                stream.close()

        return str(_call(self, read))

    def write_text(self, data: str) -> int:
        fs, path = _fs(self)

        def write() -> None:
            stream = fs.create(path, True)
            try:
                stream.write(bytearray(data.encode()))
            finally:
                stream.close()

        _call(self, write)
        return len(data)

    def mkdir(self, *, parents: bool = False, exist_ok: bool = False) -> None:
        fs, path = _fs(self)
        if not exist_ok and self.exists():
            raise FileExistsError(f"{self} exists")
        if not parents and not self.parent.exists():
            raise FileNotFoundError(f"{self.parent} does not exist")
        _call(self, lambda: fs.mkdirs(path))


def rmtree(where: Location, *, ignore_errors: bool = True) -> None:
    """Remove a directory and everything under it (as ``shutil.rmtree``: by default whatever
    fails, a directory not there included, is passed over)."""
    if isinstance(where, Path):
        shutil.rmtree(where, ignore_errors=ignore_errors)
        return
    try:
        fs, path = _fs(where)
        _call(where, lambda: fs.delete(path, True))
    except OSError:
        if not ignore_errors:
            raise


def replace(src: Location, dst: Location) -> None:
    """Move a file over another: a reader sees the old file or the new, never half (on HDFS at
    once; where Hadoop has no rename with overwrite, as for object stores, the old one is removed
    first, as Spark's own checkpoint files are written there)."""
    if isinstance(src, Path) and isinstance(dst, Path):
        src.replace(dst)
        return
    fs, source = _fs(src)
    target = _fs(dst)[1]
    jvm = _jvm()
    rename = jvm.org.apache.hadoop.fs.Options.Rename

    def overwrite() -> None:
        options = _gateway().new_array(rename, 1)
        options[0] = rename.OVERWRITE
        jvm.org.apache.hadoop.fs.FileContext.getFileContext(source.toUri(), _conf()).rename(source, target, options)

    def remove_then_rename() -> None:
        fs.delete(target, False)
        fs.rename(source, target)

    try:
        _call(src, overwrite)
    except StorageError as err:
        if err.kind != "UnsupportedFileSystemException":  # no AbstractFileSystem for the scheme
            raise
        _call(src, remove_then_rename)


def set_modified(where: Location, seconds: float) -> None:
    """Set a file's modification time (Spark's file source reads new files oldest first)."""
    if isinstance(where, Path):
        os.utime(where, (seconds, seconds))
        return
    fs, path = _fs(where)
    _call(where, lambda: fs.setTimes(path, int(seconds * 1000), -1))  # -1: access time unchanged


def copytree(src: Location, dst: Location, *, leave_out: str | None = None) -> None:
    """Copy a directory, all of it (but the file named ``leave_out`` at its top), to a new one
    (FileExistsError if ``dst`` exists); between two file systems too (a checkpoint on HDFS,
    its savepoint on a local mount)."""
    if dst.exists():
        raise FileExistsError(f"{dst} exists")
    if isinstance(src, Path) and isinstance(dst, Path):
        ignore = shutil.ignore_patterns(leave_out) if leave_out else None
        shutil.copytree(src, dst, ignore=ignore)
        return
    source_fs, source = _fs(src)
    target_fs, target = _fs(dst)
    jvm = _jvm()
    _call(src, lambda: jvm.org.apache.hadoop.fs.FileUtil.copy(source_fs, source, target_fs, target, False, _conf()))
    if leave_out:
        for left in dst.glob(leave_out):
            rmtree(left)


def tree_bytes(where: Location) -> int:
    """The bytes of the files under a directory (0: none there)."""
    if isinstance(where, Path):
        return sum(p.stat().st_size for p in where.rglob("*") if p.is_file()) if where.is_dir() else 0
    if not where.exists():
        return 0
    fs, path = _fs(where)
    return int(_call(where, lambda: fs.getContentSummary(path).getLength()))


def canonical(where: Location) -> str:
    """One spelling of a location: a local path resolved, a URI as Hadoop qualifies it (its
    default authority and port filled in, the host as written)."""
    if isinstance(where, HadoopPath):
        return _qualified(where)
    return str(Path(str(where)).resolve())


def same(a: Location, b: Location) -> bool:
    """Whether two locations name one directory (``hdfs:///ck`` and ``hdfs://nn:8020/ck`` may)."""
    if isinstance(a, Path) != isinstance(b, Path):
        return False
    return canonical(a) == canonical(b)


# The JVM side: Spark's own Hadoop configuration, through py4j. Paths that are local take part in
# a copy between file systems as file: URIs.


def _context() -> Any:
    """The SparkContext of Spark's JVM in this process."""
    from pyspark import SparkContext

    sc = SparkContext._active_spark_context
    if sc is None or sc._gateway is None or sc._jsc is None:
        raise StorageError(
            "a Hadoop URI is read through Spark's JVM in this process, and there is none (over Spark "
            "Connect, --remote): use a directory this machine and the server both mount"
        )
    return sc


def _gateway() -> Any:
    return _context()._gateway


def _jvm() -> Any:
    return _gateway().jvm


def _conf() -> Any:
    return _context()._jsc.hadoopConfiguration()


_GLOB_CHARS = frozenset("*?[]{}\\^")


def _fs(where: Location) -> tuple[Any, Any]:
    """The Hadoop FileSystem of a location and its Hadoop Path."""
    text = where.uri if isinstance(where, HadoopPath) else Path(str(where)).resolve().as_uri()
    jvm = _jvm()
    path = _call(where, lambda: jvm.org.apache.hadoop.fs.Path(text))
    return _call(where, lambda: path.getFileSystem(_conf())), path


def _qualified(where: HadoopPath) -> str:
    fs, path = _fs(where)
    return str(_call(where, lambda: fs.makeQualified(path).toString()))


def _call(where: Location, fn: Any) -> Any:
    """Run a call into the JVM; a Java exception comes back as an OSError of one line."""
    try:
        return fn()
    except Exception as err:
        java = getattr(err, "java_exception", None)  # py4j's Py4JJavaError
        if java is None:
            raise
        kind = str(java.getClass().getSimpleName())
        message = str(java.getMessage() or kind).splitlines()[0]
        if kind == "FileNotFoundException":
            raise FileNotFoundError(f"{where}: {message}") from None
        if kind == "FileAlreadyExistsException":
            raise FileExistsError(f"{where}: {message}") from None
        if kind == "UnsupportedFileSystemException" or "ClassNotFoundException" in message:
            scheme = str(where).split("://", 1)[0]
            raise StorageError(
                f"{where}: Spark's JVM has no Hadoop file system for {scheme}:// ({message}); put the jar that "
                f"provides it in 'spark.jars.packages' (for s3a://: org.apache.hadoop:hadoop-aws, of the Hadoop "
                f"version in pyspark's jars)", kind
            ) from None
        raise StorageError(f"{where}: {message} ({kind})", kind) from None
