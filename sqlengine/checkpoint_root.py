"""Where jobs keep their checkpoints: ``<home>/checkpoints`` by default, or the directory of
Flink's ``'execution.checkpointing.dir'`` (``state.checkpoints.dir`` before Flink 2; the command
line's ``--checkpoint-root``); and their savepoints: ``<home>/savepoints``, or
``'execution.checkpointing.savepoint-dir'`` (``state.savepoints.dir``). On a cluster the executors write the state there, so it must be a
directory every machine mounts (NFS, a shared disk). sqlengine itself reads the checkpoints too
(savepoints, SHOW STATE, the state backend a checkpoint was written with, the end of a bounded
input), through the local file system: a Hadoop URI other than ``file:`` is refused before a job
starts, never half-used.
"""

from __future__ import annotations

from pathlib import Path

from sqlengine.connectors.file_sink_owner import local_path

KEY = "execution.checkpointing.dir"
KEYS = (KEY, "state.checkpoints.dir")
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


class NotLocal(ValueError):
    pass


def directory(text: str, key: str = KEY) -> Path:
    """The directory a setting names: a path, or a ``file:`` URI (as Flink writes them)."""
    if "://" in text and not text.startswith("file:"):
        scheme = text.split("://", 1)[0]
        raise NotLocal(
            f"'{key}' = '{text}': checkpoints and savepoints must be on a file system mounted here and on every "
            f"machine of the cluster (a path or a file: URI, e.g. an NFS mount); sqlengine reads them itself "
            f"(savepoints, SHOW STATE), which it cannot do on {scheme}://"
        )
    return local_path(text)


def setting(text: str | None) -> dict[str, str]:
    """``--checkpoint-root DIR`` as the setting it stands for, checked before anything starts
    (raises NotLocal, a ValueError, for another file system)."""
    if not text:
        return {}
    directory(text)
    return {KEY: text}


def root(settings: dict[str, str], home: Path) -> Path:
    """The directory the checkpoints of jobs planned with ``settings`` go under."""
    text = next((settings[k] for k in KEYS if settings.get(k)), None)
    return directory(text) if text else Path(home) / "checkpoints"


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


def savepoint_root(settings: dict[str, str], home: Path) -> Path:
    """The directory STOP JOB ... WITH SAVEPOINT writes savepoints under (raises NotLocal for
    another file system, before the job is stopped)."""
    key = next((k for k in SAVEPOINT_KEYS if settings.get(k)), None)
    return directory(settings[key], key) if key else Path(home) / "savepoints"
