"""Where jobs keep their checkpoints: ``<home>/checkpoints`` by default, or the directory of
Flink's ``'execution.checkpointing.dir'`` (``state.checkpoints.dir`` before Flink 2; the command
line's ``--checkpoint-root``); and their savepoints: ``<home>/savepoints``, or
``'execution.checkpointing.savepoint-dir'`` (``state.savepoints.dir``). On a cluster the executors
write the state there, so it must be a directory every machine reaches: a shared mount (NFS) or a
Hadoop URI (``hdfs://namenode:8020/checkpoints``). sqlengine itself reads the checkpoints too
(savepoints, SHOW STATE, the state backend a checkpoint was written with, the end of a bounded
input): a Hadoop URI through the JVM's Hadoop file system (``sqlengine.storage``), which over
Spark Connect is not in this process, so there such a URI is refused before a job starts.
"""

from __future__ import annotations

import re
from pathlib import Path

from sqlengine.storage import Location, is_uri, location

KEY = "execution.checkpointing.dir"
KEYS = (KEY, "state.checkpoints.dir")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


class NotLocal(ValueError):
    """A checkpoint or savepoint directory sqlengine cannot read and write from here."""


def directory(text: str, key: str = KEY, *, remote: bool = False) -> Location:
    """The directory a setting names: a path, a ``file:`` URI (as Flink writes them) or a Hadoop
    URI; ``remote``: the session is a Spark Connect client, which has no JVM to read one with."""
    if is_uri(text):
        scheme, rest = text.split("://", 1)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme) or not rest.strip("/"):
            raise NotLocal(f"'{key}' = '{text}' is not a directory: write a path or a URI such as hdfs://namenode:8020/checkpoints")
        if remote:
            raise NotLocal(
                f"'{key}' = '{text}': over Spark Connect (--remote) checkpoints and savepoints must be on a directory "
                f"mounted here and on the server (a path or a file: URI); sqlengine reads them itself (savepoints, "
                f"SHOW STATE), and reads {scheme}:// through a JVM this process does not have"
            )
    return location(text)


def setting(text: str | None, *, remote: bool = False) -> dict[str, str]:
    """``--checkpoint-root DIR`` as the setting it stands for, checked before anything starts
    (raises NotLocal, a ValueError, for what names no directory, or a Hadoop URI over Spark
    Connect)."""
    if not text:
        return {}
    directory(text, remote=remote)
    return {KEY: text}


def root(settings: dict[str, str], home: Path, *, remote: bool = False) -> Location:
    """The directory the checkpoints of jobs planned with ``settings`` go under."""
    key = next((k for k in KEYS if settings.get(k)), None)
    return directory(settings[key], key, remote=remote) if key else Path(home) / "checkpoints"


def is_set(settings: dict[str, str]) -> bool:
    return any(settings.get(k) for k in KEYS)


def local_only_note(master: str | None, settings: dict[str, str], home: Path) -> str | None:
    """Told when a job starts on a cluster with its checkpoint on this machine only: executors
    elsewhere would write their state to their own disks, and a restart would not find it."""
    if not master or master.startswith("local") or is_set(settings):
        return None
    host = master.split("://", 1)[-1].split(":", 1)[0] if "://" in master else ""
    if host in LOOPBACK_HOSTS:
        return None  # a cluster on this machine: its workers share this disk
    return (f"the checkpoint is under {Path(home) / 'checkpoints'}, on this machine only: executors on other machines "
            f"cannot reach it; SET '{KEY}' (or --checkpoint-root) to a directory every machine mounts")


SAVEPOINT_KEY = "execution.checkpointing.savepoint-dir"
SAVEPOINT_KEYS = (SAVEPOINT_KEY, "state.savepoints.dir")


def savepoint_root(settings: dict[str, str], home: Path, *, remote: bool = False) -> Location:
    """The directory STOP JOB ... WITH SAVEPOINT writes savepoints under (raises NotLocal for
    one it cannot reach, before the job is stopped)."""
    key = next((k for k in SAVEPOINT_KEYS if settings.get(k)), None)
    return directory(settings[key], key, remote=remote) if key else Path(home) / "savepoints"
